package io.pagemark.pipelines.flink;

import io.pagemark.pipelines.cli.LocalFlink;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * Where a pipeline on the Flink runner goes, and the defaults that make a submission to a session cluster work: the
 * cluster must answer at {@code --flinkMaster}, {@code --parallelism} defaults to its slot count (Beam's default is
 * 1), and {@code --filesToStage} defaults to the job jar named by the system property {@value #JAR_PROPERTY}, so that
 * one shaded jar is shipped rather than every jar of the launcher's classpath. Other runners are left as they are.
 */
public final class FlinkTarget {
  /** System property naming the Flink job jar ({@code pipelines/target/pagemark-flink.jar}). */
  public static final String JAR_PROPERTY = "pagemark.flinkJar";

  private final String restAddress;

  private FlinkTarget(String restAddress) {
    this.restAddress = restAddress;
  }

  /** Whether the options run the pipeline on Flink. */
  static boolean isFlink(PipelineOptions options) {
    return FlinkRunner.class.isAssignableFrom(options.getRunner());
  }

  /** Whether {@code --flinkMaster} names a cluster rather than an in-process one ({@code [local]}, {@code [auto]}). */
  static boolean isRemote(String flinkMaster) {
    return flinkMaster != null && !flinkMaster.matches("\\[(local|auto|collection)\\]");
  }

  /**
   * Completes the Flink options (see the class comment) and returns the target, or nothing for other runners. Throws
   * {@link IllegalArgumentException} with what to do when the cluster does not answer or the job jar is missing.
   */
  public static Optional<FlinkTarget> prepare(PipelineOptions options, PrintStream progress) {
    return prepare(options, progress, "pagemark backfill");
  }

  /** As {@link #prepare(PipelineOptions, PrintStream)}; lines printed start with {@code command}. */
  public static Optional<FlinkTarget> prepare(PipelineOptions options, PrintStream progress, String command) {
    if (!isFlink(options)) {
      return Optional.empty();
    }
    FlinkPipelineOptions flink = options.as(FlinkPipelineOptions.class);
    if (!isRemote(flink.getFlinkMaster())) {
      String master = LocalFlink.shownMaster(flink.getFlinkMaster());
      progress.println(command + ": running on Flink " + (master.equals("[auto]")
              ? "([auto]: the cluster of `flink run`, else inside this JVM)"
              : "in this JVM (" + master + ")")
          + (flink.getParallelism() > 0 ? ", parallelism " + flink.getParallelism() : ""));
      return Optional.of(new FlinkTarget(null));
    }
    FlinkRest rest = new FlinkRest(flink.getFlinkMaster());
    FlinkRest.Overview overview;
    try {
      overview = rest.overview();
    } catch (IOException e) {
      // no cause attached: the CLI prints the root cause's message, and this one says what to do
      throw new IllegalArgumentException(e.getMessage() + "; check --flinkMaster=HOST:PORT (the REST port), or"
          + " start a local cluster with: pagemark flink-cluster start");
    }
    if (overview.slotsTotal() < 1) {
      throw new IllegalArgumentException("the Flink cluster at " + rest.address() + " has no TaskManager slots;"
          + " start TaskManagers, or check: pagemark flink-cluster status");
    }
    if (flink.getParallelism() < 1) {
      flink.setParallelism(overview.slotsTotal());
    }
    if (flink.getFilesToStage() == null && System.getProperty(JAR_PROPERTY) != null) {
      Path jar = Path.of(System.getProperty(JAR_PROPERTY)).toAbsolutePath();
      if (!Files.isRegularFile(jar)) {
        throw new IllegalArgumentException("the Flink job jar " + jar + " is not built (bin/pagemark builds it;"
            + " or run: mvn -B -DskipTests -Pflink-jar -pl pipelines -am package)");
      }
      flink.setFilesToStage(List.of(jar.toString()));
    }
    progress.printf("%s: submitting to the Flink cluster at http://%s (Flink %s, %d TaskManagers,"
            + " %d slots) with parallelism %d, staging %s%n", command, rest.address(), overview.flinkVersion(),
        overview.taskManagers(), overview.slotsTotal(), flink.getParallelism(),
        flink.getFilesToStage() == null ? "the classpath" : String.join(", ", flink.getFilesToStage()));
    return Optional.of(new FlinkTarget(rest.address()));
  }

  /** The cluster's REST address, or nothing when the job runs inside this JVM. */
  public Optional<String> restAddress() {
    return Optional.ofNullable(restAddress);
  }
}
