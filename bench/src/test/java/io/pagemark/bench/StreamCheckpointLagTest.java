package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.nullValue;

import org.junit.jupiter.api.Test;

/** A window whose stream made no change durable is a failure, never a figure of -1 ms. */
class StreamCheckpointLagTest {
  @Test
  void aWindowWithLagsIsAFigure() {
    StreamLagBenchmark.Result r = new StreamLagBenchmark.Result(3_000, 50, 1_052, 1_272, -1, -1, 0, -1, -1);
    assertThat(StreamCheckpointLag.failure(r, 50, "without checkpoints"), nullValue());
  }

  @Test
  void aWindowThatMadeNothingDurableIsAFailureThatSaysWhich() {
    StreamLagBenchmark.Result r = new StreamLagBenchmark.Result(30_000, 498, -1, -1, -1, -1, 0, -1, -1);
    assertThat(StreamCheckpointLag.failure(r, 500, "with checkpoints every 5 s"), allOf(
        containsString("with checkpoints every 5 s"), containsString("30,000 writes at 500/s asked"),
        containsString("no lag to report")));
  }
}
