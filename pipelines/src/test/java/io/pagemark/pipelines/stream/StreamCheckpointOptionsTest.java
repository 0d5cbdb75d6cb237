package io.pagemark.pipelines.stream;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;

/** How {@code --checkpointSeconds} and Flink's own checkpoint options turn into the job's checkpoint settings. */
class StreamCheckpointOptionsTest {
  final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  final PrintStream progress = new PrintStream(printed, true, StandardCharsets.UTF_8);

  static FlinkPipelineOptions flink(String... args) {
    return PipelineOptionsFactory.fromArgs(args).as(FlinkPipelineOptions.class);
  }

  String printed() {
    return printed.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theDefaultChecksEveryTenSecondsToAFolderTheMachineShares() {
    FlinkPipelineOptions o = flink();
    StreamRunner.checkpoints(o, 10, progress);
    assertThat(o.getCheckpointingInterval(), is(10_000L));
    assertThat(o.getStateBackend(), equalTo("filesystem"));
    assertThat(o.getStateBackendStoragePath(), startsWith("file:/"));
    assertThat(o.getStateBackendStoragePath(), endsWith("/pagemark-flink-checkpoints"));
    assertThat(printed(), startsWith("pagemark stream: Flink checkpoints every 10,000 ms to file:/"));
  }

  @Test
  void flinksOwnOptionsWin() {
    FlinkPipelineOptions o = flink("--checkpointingInterval=3000", "--stateBackend=rocksdb",
        "--stateBackendStoragePath=file:///shared/checkpoints");
    StreamRunner.checkpoints(o, 10, progress);
    assertThat(o.getCheckpointingInterval(), is(3_000L));
    assertThat(o.getStateBackend(), equalTo("rocksdb"));
    assertThat(o.getStateBackendStoragePath(), equalTo("file:///shared/checkpoints"));
  }

  @Test
  void zeroTurnsThemOffAndANegativeNumberIsRefused() {
    FlinkPipelineOptions o = flink();
    StreamRunner.checkpoints(o, 0, progress);
    assertThat(o.getCheckpointingInterval(), is(-1L));
    assertThat(o.getStateBackend(), nullValue());
    assertThat(printed(), containsString("Flink checkpoints are off"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> StreamRunner.checkpoints(flink(), -1, progress));
    assertThat(e.getMessage(), equalTo("--checkpointSeconds must be 0 (off) or more, not -1"));
  }
}
