package io.pagemark.pipelines.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The Flink configuration the batch commands ({@code backfill}, {@code catch-up}, {@code markers build}, and the
 * benchmarks' builds) give Flink's local cluster ({@code --runner=FlinkRunner --flinkMaster=[local]}, or {@code [auto]},
 * the default, which is the local cluster outside {@code flink run}) when the user gives none ({@code --flinkConfDir} or the {@code FLINK_CONF_DIR} environment variable): batch exchanges
 * uncompressed. Flink compresses the data its batch jobs exchange (LZ4) by default, which on one machine spends CPU to
 * save disk: in the 10 M-entry build on 2 cores, compressing the blocked entries took about 6% of all CPU and the
 * build ran 0.9 s (8%) faster without it, while the exchange files' peak on disk stayed the same (docs/build-speed.md,
 * "Seventh round"). And, while the local cluster runs at most {@value #LARGE_SEGMENTS_UP_TO} tasks of a step at once,
 * memory segments (network buffers) of {@value #LARGE_SEGMENT} instead of 32 KB: a build's blocks of entries are
 * larger than 32 KB, and each crossed two or three buffers on every exchange; the 10 M-entry build ran 0.3 to 0.6 s
 * faster with 0.3 to 1.3 s less CPU ("Ninth round"). The local cluster's network memory stays 64 MB, so there are a
 * quarter as many buffers: enough at a parallelism of 16, not at 32, hence the bound. A cluster's own configuration is
 * left alone: there the network, not the CPU, may be what is short. The local cluster starts while Beam translates
 * the pipeline ({@link EarlyLocalCluster}, for which the options name the master {@code [auto]}).
 */
public final class LocalFlink {
  /**
   * System property that, set to {@code off}, has the local cluster start when the job is submitted (after Beam's
   * translation), as Flink's local executor starts it, rather than early ({@link EarlyLocalCluster}).
   */
  public static final String EARLY_PROPERTY = "pagemark.localCluster.early";

  /** The memory segment size the local cluster is given at a parallelism of up to {@link #LARGE_SEGMENTS_UP_TO}. */
  static final String LARGE_SEGMENT = "128kb";

  /** The largest parallelism given {@link #LARGE_SEGMENT}s (512 buffers in 64 MB ran a build at 16, not at 32). */
  static final int LARGE_SEGMENTS_UP_TO = 8;

  /**
   * What the local cluster is given, in Flink's {@code config.yaml} format: uncompressed batch exchanges, and
   * {@link #LARGE_SEGMENT}s when it runs at most {@link #LARGE_SEGMENTS_UP_TO} tasks of a step at once.
   */
  static String config(int parallelism) {
    String yaml = """
        # written by pagemark for Flink's local cluster (see LocalFlink)
        taskmanager:
          network:
            batch-shuffle:
              compression:
                enabled: false
        """;
    if (parallelism <= LARGE_SEGMENTS_UP_TO) {
      yaml += """
            memory:
              segment-size: %s
          """.formatted(LARGE_SEGMENT); // under taskmanager:
    }
    return yaml;
  }

  /** The master the options named when {@link #configure} last made them {@code [auto]}. */
  private static volatile String givenMaster;

  private LocalFlink() {}

  /**
   * The master to show for {@code flinkMaster}: the one the user named ({@code [local]} or {@code [auto]}) when this
   * class runs the pipeline on a local cluster of its own (it names it {@code [auto]}, see {@link EarlyLocalCluster}),
   * else {@code flinkMaster} itself.
   */
  public static String shownMaster(String flinkMaster) {
    String given = givenMaster;
    return "[auto]".equals(flinkMaster) && given != null && EarlyLocalCluster.pending() ? given : flinkMaster;
  }

  /**
   * Points {@code options} at a configuration of {@link #config} in a temporary directory (deleted when the JVM exits)
   * when they run a pipeline on Flink with {@code [local]} or {@code [auto]} and name no configuration, and {@code
   * FLINK_CONF_DIR} is unset (Flink's {@code flink run} sets it), and has their next run start its cluster early
   * ({@link EarlyLocalCluster}); leaves them alone otherwise.
   */
  public static void configure(PipelineOptions options) {
    configure(options, System::getenv, Runtime.getRuntime().availableProcessors());
  }

  /**
   * {@link #configure(PipelineOptions)} with this environment and this many processors (the local cluster's
   * parallelism when the options name none, as Beam's runner starts it).
   */
  static void configure(PipelineOptions options, Function<String, String> environment, int processors) {
    if (!options.getRunner().getName().equals("org.apache.beam.runners.flink.FlinkRunner")) {
      EarlyLocalCluster.uninstall();
      return;
    }
    FlinkPipelineOptions flink = options.as(FlinkPipelineOptions.class);
    String master = flink.getFlinkMaster();
    if (!("[local]".equals(master) || "[auto]".equals(master)) || flink.getFlinkConfDir() != null
        || environment.apply("FLINK_CONF_DIR") != null) {
      EarlyLocalCluster.uninstall(); // one this class installed for an earlier run that never ran
      return;
    }
    try {
      int parallelism = flink.getParallelism() != null && flink.getParallelism() > 0 ? flink.getParallelism()
          : processors;
      Path dir = confDir(config(parallelism));
      dir.toFile().deleteOnExit();
      dir.resolve("config.yaml").toFile().deleteOnExit(); // deleted before its folder: the last registered goes first
      flink.setFlinkConfDir(dir.toString());
      if ("off".equals(System.getProperty(EARLY_PROPERTY))) {
        EarlyLocalCluster.uninstall();
        return;
      }
      // Beam's runner takes Flink's context environment for [auto] only; [local] is told apart in what it prints
      EarlyLocalCluster.install(dir.toString(), parallelism, "[local]".equals(master));
      givenMaster = master;
      flink.setFlinkMaster("[auto]");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a Flink configuration for the local cluster", e);
    }
  }

  /**
   * A configuration folder for Flink in this JVM whose REST API (no web UI) listens on {@code rest} ({@code
   * 127.0.0.1:port}) and fetches the job's metrics every {@code fetchMillis}: how a launcher reads a running job's
   * counters ({@code FlinkRest}).
   */
  public static Path restConfDir(String rest, long fetchMillis) throws IOException {
    String port = rest.substring(rest.indexOf(':') + 1);
    return confDir(String.join("\n",
        "# Flink inside this JVM: its REST API (no web UI) serves the job's counters to the launcher.",
        "rest.address: 127.0.0.1", "rest.bind-address: 127.0.0.1", "rest.port: " + port, "rest.bind-port: " + port,
        "metrics.fetcher.update-interval: " + fetchMillis, ""));
  }

  /** A new temporary folder holding {@code config} as Flink's {@code config.yaml}, for {@code --flinkConfDir}. */
  public static Path confDir(String config) throws IOException {
    Path dir = Files.createTempDirectory("pagemark-flink-conf-");
    Files.writeString(dir.resolve("config.yaml"), config, StandardCharsets.UTF_8);
    return dir;
  }
}
