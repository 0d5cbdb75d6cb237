package io.pagemark.transforms.sink.file;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.jupiter.api.Test;

/** A group's summary survives its coder whole, whatever its strings hold, and costs less than Java serialization. */
class GroupSummaryCoderTest {
  @Test
  void everyFieldComesBack() throws Exception {
    GroupSummary hostile = new GroupSummary("groups/ab/cd/abcd.pmi",
        "{\"group\":\"S:../<script>é\\u0000😀\",\"entries\":3}", Long.MAX_VALUE, 0, 7);
    GroupSummary empty = new GroupSummary("", "", 0, 0, 0);
    for (GroupSummary s : new GroupSummary[] {hostile, empty}) {
      CoderProperties.coderDecodeEncodeEqual(GroupSummary.Coder.of(), s);
      assertThat(CoderUtils.clone(GroupSummary.Coder.of(), s), equalTo(s));
    }
    assertThat(CoderUtils.encodeToByteArray(GroupSummary.Coder.of(), hostile).length,
        lessThan(CoderUtils.encodeToByteArray(SerializableCoder.of(GroupSummary.class), hostile).length));
  }
}
