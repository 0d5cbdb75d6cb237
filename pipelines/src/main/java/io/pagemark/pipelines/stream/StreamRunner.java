package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.LocalFlink;
import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.testing.LocalProcess;

import io.pagemark.transforms.source.CborOffClientBuilderFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.io.aws2.common.ClientBuilderFactory;
import org.apache.beam.sdk.io.aws2.options.AwsOptions;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The runner settings of an unbounded pipeline that a launcher follows and stops ({@code pagemark stream}),
 * independent of what the pipeline writes. DirectRunner: it does not
 * block in {@code run()}, and its checks of user code are off (they halve a long-running stream's throughput; the
 * transforms are tested with them on). Flink: Kinesis clients built with CBOR off wherever they are built, on
 * TaskManagers too ({@link CborOffClientBuilderFactory}), unless the options name another factory; streaming mode,
 * submitted detached so that {@code run()} returns a
 * result whose state and cancellation reach the job (in this JVM or on a cluster), polled every second; for a
 * cluster, the defaults of {@link FlinkTarget} (parallelism = slots, the job jar staged). Flink's runner hands Beam's
 * counters to the client only when a streaming job ends, so the launcher reads them from Flink's REST API: the
 * cluster's, or for {@code [local]} the one of the in-process cluster, put on a free loopback port through a
 * configuration folder written for the run (unless {@code --flinkConfDir} or {@code FLINK_CONF_DIR} names one).
 */
final class StreamRunner {
  private StreamRunner() {}

  /**
   * Where a stream runs on Flink.
   *
   * @param restAddress {@code host:port} of the REST API that serves the job's metrics, if known
   * @param cluster whether that is a cluster's (the job outlives this JVM) rather than one inside this JVM
   * @param confDir the configuration folder written for Flink inside this JVM: delete it once the job has started
   */
  record FlinkJob(Optional<String> restAddress, boolean cluster, Optional<Path> confDir) {
    /** Deletes the configuration folder written for the run, if any (Flink has read it when the job started). */
    void deleteConfDir() throws IOException {
      if (confDir.isPresent()) {
        Files.deleteIfExists(confDir.get().resolve("config.yaml"));
        Files.deleteIfExists(confDir.get());
      }
    }
  }

  /** Completes the options for their runner; returns where the job runs when the runner is Flink. */
  static Optional<FlinkJob> configure(PipelineOptions options, PrintStream progress) throws IOException {
    DirectOptions direct = options.as(DirectOptions.class);
    direct.setBlockOnRun(false);
    direct.setEnforceImmutability(false);
    direct.setEnforceEncodability(false);
    Optional<FlinkTarget> target = FlinkTarget.prepare(options, progress, "pagemark stream");
    if (target.isEmpty()) {
      return Optional.empty();
    }
    AwsOptions aws = options.as(AwsOptions.class);
    if (aws.getClientBuilderFactory() == null
        || aws.getClientBuilderFactory().equals(ClientBuilderFactory.DefaultClientBuilder.class)) {
      aws.setClientBuilderFactory(CborOffClientBuilderFactory.class);
    }
    FlinkPipelineOptions flink = options.as(FlinkPipelineOptions.class);
    flink.setStreaming(true);
    flink.setAttachedMode(false);
    flink.setJobCheckIntervalInSecs(1);
    checkpoints(flink, options.as(StreamOptions.class).getCheckpointSeconds(), progress);
    if (target.get().restAddress().isPresent()) {
      return Optional.of(new FlinkJob(target.get().restAddress(), true, Optional.empty()));
    }
    if (!"[local]".equals(flink.getFlinkMaster()) || flink.getFlinkConfDir() != null
        || System.getenv("FLINK_CONF_DIR") != null) {
      return Optional.of(new FlinkJob(Optional.empty(), false, Optional.empty()));
    }
    String rest = "127.0.0.1:" + LocalProcess.freePort();
    Path conf = LocalFlink.restConfDir(rest, 1000); // counters a second old at most
    flink.setFlinkConfDir(conf.toString());
    return Optional.of(new FlinkJob(Optional.of(rest), false, Optional.of(conf)));
  }

  /**
   * Turns Flink's checkpoints on, every {@code seconds} unless {@code --checkpointingInterval} is given: the state
   * (Kinesis shard positions, changes waiting in windows) is kept on the heap and written to
   * {@code --stateBackendStoragePath}, by default a folder under the system's temporary folder, which every
   * TaskManager of a cluster on this machine shares (a cluster of several machines needs a shared file system there).
   * With checkpoints on, Flink's default restart strategy (exponential delay, without limit) restarts a job that lost
   * a TaskManager from its last checkpoint, unless {@code --numberOfExecutionRetries} sets another.
   */
  static void checkpoints(FlinkPipelineOptions flink, int seconds, PrintStream progress) {
    if (seconds < 0) {
      throw new IllegalArgumentException("--checkpointSeconds must be 0 (off) or more, not " + seconds);
    }
    if (flink.getCheckpointingInterval() <= 0 && seconds > 0) {
      flink.setCheckpointingInterval(seconds * 1000L);
    }
    if (flink.getCheckpointingInterval() <= 0) {
      progress.println("pagemark stream: Flink checkpoints are off: a TaskManager lost stops the job (resume it"
          + " with a new launcher)");
      return;
    }
    if (flink.getStateBackend() == null && flink.getStateBackendFactory() == null) {
      flink.setStateBackend("filesystem");
    }
    if (flink.getStateBackendStoragePath() == null) {
      // (a URI of an existing folder ends with a slash, one of a missing folder not: the same path either way)
      flink.setStateBackendStoragePath(Path.of(System.getProperty("java.io.tmpdir"), "pagemark-flink-checkpoints")
          .toAbsolutePath().toUri().toString().replaceAll("/$", ""));
    }
    Cli.printAtOnce(progress, "pagemark stream: Flink checkpoints every %,d ms to %s; a TaskManager lost restarts"
        + " the job"
        + " from the last one%n", flink.getCheckpointingInterval(), flink.getStateBackendStoragePath());
  }
}
