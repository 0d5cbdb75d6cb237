package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.beam.sdk.values.KV;
import org.junit.jupiter.api.Test;

/** Samples in the blocks' stream come back as they went in, and no block of entries is taken for them. */
class SampleBlocksTest {
  @Test
  void samplesComeBackAsTheyWentIn() {
    PlanGroupFn.Samples samples = new PlanGroupFn.Samples();
    PlanGroupFn.Sample a = new PlanGroupFn.Sample();
    a.count = 12;
    a.sortKeys.add("x".getBytes(StandardCharsets.UTF_8));
    a.sortKeys.add(new byte[] {0, (byte) 0xFF});
    PlanGroupFn.Sample b = new PlanGroupFn.Sample();
    b.count = 1;
    samples.byGroup.put("1:6162", a);
    samples.byGroup.put("2:80", b);

    KV<byte[], EntryBlock> element = SampleBlocks.of(KV.of("bucket-7", samples));
    assertThat(SampleBlocks.isSamples(element.getKey()), is(true));
    assertThat("no entries", element.getValue().count(), is(0));
    KV<String, PlanGroupFn.Samples> back = SampleBlocks.samples(element);
    assertThat(back.getKey(), equalTo("bucket-7"));
    assertThat(back.getValue().byGroup.keySet(), equalTo(samples.byGroup.keySet()));
    assertThat(back.getValue().byGroup.get("1:6162").count, is(12L));
    assertThat(back.getValue().byGroup.get("1:6162").sortKeys.get(1), equalTo(new byte[] {0, (byte) 0xFF}));
    assertThat(back.getValue().byGroup.get("2:80").count, is(1L));
    assertThat(back.getValue().count(), is(13L));
  }

  @Test
  void noBlockOfEntriesIsTakenForSamples() {
    for (KeyValue group : List.of(KeyValue.ofString(""), KeyValue.ofString("\u00ff\u00fe"),
        KeyValue.ofNumber("-1e125"), KeyValue.ofBinary(new byte[] {(byte) 0xFE, (byte) 0xFF}))) {
      byte[] prefix = AssignPartFn.prefix(group);
      assertThat(group.toString(), SampleBlocks.isSamples(prefix), is(false));
      assertThat(SampleBlocks.isSamples(AssignPartFn.partKey(prefix, 3, 4)), is(false));
      assertThat(SampleBlocks.isSamples(AssignPartFn.sharedKey(prefix, 100)), is(false));
    }
    KV<byte[], EntryBlock> entries = KV.of(AssignPartFn.prefix(KeyValue.ofString("g")),
        EntryBlock.of(List.of(new IndexEntry(KeyValue.ofString("g"),
            List.of(KeyValue.ofString("k"), KeyValue.ofString("pk"))))));
    assertThrows(IllegalArgumentException.class, () -> SampleBlocks.samples(entries));
  }
}
