package io.pagemark.transforms.source;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.BoundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;

class SegmentsTest {
  private final PipelineOptions options = PipelineOptionsFactory.create();

  /** Every segment number once, whatever the runner asks of the split. */
  @Test
  void readsEverySegmentOnce() {
    Pipeline p = Pipeline.create(options);
    PCollection<Integer> read = p.apply(Segments.of(13));
    PAssert.that(read).containsInAnyOrder(IntStream.range(0, 13).boxed().collect(Collectors.toList()));
    p.run().waitUntilFinish();
  }

  /** One source per segment, so that a runner hands them out one at a time (a bundle size is never honoured). */
  @Test
  void splitsIntoOneSourcePerSegment() throws Exception {
    Segments.Source all = new Segments.Source(0, 8);
    for (long desired : new long[] {1, 16, 1 << 30}) {
      List<Segments.Source> one = all.split(desired, options);
      assertThat(one.size(), is(8));
      List<Integer> read = new ArrayList<>();
      for (Segments.Source s : one) {
        try (BoundedSource.BoundedReader<Integer> r = s.createReader(options)) {
          for (boolean more = r.start(); more; more = r.advance()) {
            read.add(r.getCurrent());
          }
        }
      }
      assertThat(read, is(IntStream.range(0, 8).boxed().collect(Collectors.toList())));
    }
  }

  @Test
  void needsASegment() {
    assertThat(assertThrows(IllegalArgumentException.class, () -> Segments.of(0)).getMessage(),
        containsString("at least one segment"));
  }
}
