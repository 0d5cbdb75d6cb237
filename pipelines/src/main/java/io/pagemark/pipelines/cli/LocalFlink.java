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
 * left alone: there the network, not the CPU, may be what is short.
 */
public final class LocalFlink {
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

  private LocalFlink() {}

  /**
   * Points {@code options} at a configuration of {@link #config} in a temporary directory (deleted when the JVM exits)
   * when they run a pipeline on Flink with {@code [local]} or {@code [auto]} and name no configuration, and {@code
   * FLINK_CONF_DIR} is unset (Flink's {@code flink run} sets it); leaves them alone otherwise.
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
      return;
    }
    FlinkPipelineOptions flink = options.as(FlinkPipelineOptions.class);
    String master = flink.getFlinkMaster();
    if (!("[local]".equals(master) || "[auto]".equals(master)) || flink.getFlinkConfDir() != null
        || environment.apply("FLINK_CONF_DIR") != null) {
      return;
    }
    try {
      int parallelism = flink.getParallelism() != null && flink.getParallelism() > 0 ? flink.getParallelism()
          : processors;
      Path dir = confDir(config(parallelism));
      dir.toFile().deleteOnExit();
      dir.resolve("config.yaml").toFile().deleteOnExit(); // deleted before its folder: the last registered goes first
      flink.setFlinkConfDir(dir.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a Flink configuration for the local cluster", e);
    }
  }

  /** A new temporary folder holding {@code config} as Flink's {@code config.yaml}, for {@code --flinkConfDir}. */
  public static Path confDir(String config) throws IOException {
    Path dir = Files.createTempDirectory("pagemark-flink-conf-");
    Files.writeString(dir.resolve("config.yaml"), config, StandardCharsets.UTF_8);
    return dir;
  }
}
