package io.pagemark.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.BuildInfo;
import io.pagemark.transforms.BuildContext.ScanCounts;
import java.util.Map;
import org.apache.beam.sdk.Pipeline.PipelineExecutionException;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A build's counts account for every item the source read, or the publishing step fails and publishes nothing. */
@ExtendWith(TestPipelineExtension.class)
class ScanCountsTest {
  /** Tallies of 10 items scanned, 1 without a group key, 2 without a sort key; 3 dead letters, or none. */
  private static ScanCounts counts(TestPipeline p, boolean deadLetters) {
    var tallies = p.apply("Tallies", Create.of(KV.of(ScanCounts.ITEMS_SCANNED, 10L),
            KV.of(ScanCounts.SKIPPED_NO_GROUP_KEY, 1L), KV.of(ScanCounts.SKIPPED_NO_SORT_KEY, 2L))
        .withCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))).apply("As map", View.asMap());
    var dead = deadLetters ? p.apply("Dead", Create.of(3L)).apply("As one", View.asSingleton()) : null;
    return new ScanCounts(tallies, dead);
  }

  private static PCollection<BuildInfo.Counts> counted(TestPipeline p, ScanCounts counts, long entries) {
    return p.apply("Publish", Create.of("build"))
        .apply(ParDo.of(new DoFn<String, BuildInfo.Counts>() {
          @ProcessElement
          public void process(ProcessContext c) {
            c.output(counts.counted(c, c.element(), entries, 2, 1, 0));
          }
        }).withSideInputs(counts.sideInputs()))
        .setCoder(SerializableCoder.of(BuildInfo.Counts.class));
  }

  @Test
  void countsThatAddUpAreTheBuildsCounts(TestPipeline p) {
    PAssert.that(counted(p, counts(p, true), 4))
        .containsInAnyOrder(new BuildInfo.Counts(10, 4, 2, 1, 2, 3, 1, 0));
    p.run().waitUntilFinish();
  }

  @Test
  void aSourceWithoutDeadLettersCountsNone(TestPipeline p) {
    PAssert.that(counted(p, counts(p, false), 7))
        .containsInAnyOrder(new BuildInfo.Counts(10, 7, 2, 1, 2, 0, 1, 0));
    p.run().waitUntilFinish();
  }

  @Test
  void anItemUnaccountedForFailsThePublishingStep(TestPipeline p) {
    counted(p, counts(p, true), 3);
    PipelineExecutionException e = assertThrows(PipelineExecutionException.class, () -> p.run().waitUntilFinish());
    assertThat(e.getCause(), instanceOf(IllegalStateException.class));
    assertThat(e.getCause().getMessage(), equalTo("build build does not account for every item: scanned 10 but"
        + " indexed 3, skipped 3, dead-lettered 3; nothing was published"));
  }
}
