package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.TextIO;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flink's local cluster gets uncompressed batch exchanges, and larger network buffers at a small parallelism, unless the
 * user names a Flink configuration; nothing else is touched. The cluster starts while Beam translates the pipeline
 * ({@link EarlyLocalCluster}), and runs the job as Flink's own would.
 */
class LocalFlinkTest {
  @TempDir Path tmp;

  private static FlinkPipelineOptions configured(Map<String, String> environment, String... args) {
    return configured(environment, 2, args);
  }

  private static FlinkPipelineOptions configured(Map<String, String> environment, int processors, String... args) {
    FlinkPipelineOptions o = PipelineOptionsFactory.fromArgs(args).as(FlinkPipelineOptions.class);
    LocalFlink.configure(o, environment::get, processors);
    return o;
  }

  /** The memory segment size the local cluster runs with, read as Beam's runner reads its configuration. */
  private static MemorySize segmentSize(FlinkPipelineOptions o) {
    return GlobalConfiguration.loadConfiguration(o.getFlinkConfDir()).get(TaskManagerOptions.MEMORY_SEGMENT_SIZE);
  }

  @Test
  void theLocalClusterReadsAConfigurationWithoutCompression() {
    FlinkPipelineOptions o = configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]");
    assertThat(o.getFlinkConfDir(), notNullValue());
    // read as Beam's runner reads it when it starts the local cluster
    Configuration flink = GlobalConfiguration.loadConfiguration(o.getFlinkConfDir());
    assertThat(flink.get(NettyShuffleEnvironmentOptions.BATCH_SHUFFLE_COMPRESSION_ENABLED), is(false));
    assertThat("[auto], the default master, is the local cluster outside flink run",
        configured(Map.of(), "--runner=FlinkRunner").getFlinkConfDir(), notNullValue());
    assertThat("Flink's default", new Configuration().get(
        NettyShuffleEnvironmentOptions.BATCH_SHUFFLE_COMPRESSION_ENABLED), is(true));
  }

  @Test
  void largerNetworkBuffersUpToAParallelismOfEight() {
    MemorySize large = MemorySize.parse(LocalFlink.LARGE_SEGMENT);
    assertThat(large, is(MemorySize.parse("128kb")));
    assertThat(segmentSize(configured(Map.of(), "--runner=FlinkRunner", "--parallelism=2")), is(large));
    assertThat(segmentSize(configured(Map.of(), "--runner=FlinkRunner", "--parallelism=8")), is(large));
    // a quarter as many buffers in the same 64 MB: a build at 32 ran out of them
    MemorySize flinks = new Configuration().get(TaskManagerOptions.MEMORY_SEGMENT_SIZE);
    assertThat(flinks, is(MemorySize.parse("32kb")));
    assertThat(segmentSize(configured(Map.of(), "--runner=FlinkRunner", "--parallelism=9")), is(flinks));
    // no --parallelism: the local cluster runs a task per processor
    assertThat(segmentSize(configured(Map.of(), 4, "--runner=FlinkRunner")), is(large));
    assertThat(segmentSize(configured(Map.of(), 32, "--runner=FlinkRunner")), is(flinks));
    assertThat(segmentSize(configured(Map.of(), 32, "--runner=FlinkRunner", "--parallelism=2")), is(large));
  }

  @Test
  void aConfigurationOfTheUsersOrAnotherClusterIsLeftAlone() {
    assertThat(configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]", "--flinkConfDir=/etc/flink")
        .getFlinkConfDir(), is("/etc/flink"));
    assertThat(configured(Map.of("FLINK_CONF_DIR", "/etc/flink"), "--runner=FlinkRunner", "--flinkMaster=[local]")
        .getFlinkConfDir(), nullValue());
    assertThat(configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=127.0.0.1:8081").getFlinkConfDir(),
        nullValue());
    assertThat(configured(Map.of(), "--runner=DirectRunner").getFlinkConfDir(), nullValue());
  }

  /** Runs a job that sums 1..n by parity on these options and returns its output lines, sorted. */
  private List<String> sumByParity(FlinkPipelineOptions o, long n) throws IOException {
    Path out = Files.createTempDirectory(tmp, "out");
    Pipeline p = Pipeline.create(o);
    p.apply(Create.of(LongStream.rangeClosed(1, n).boxed().collect(Collectors.toList())))
        .apply(MapElements.into(TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.longs()))
            .via(i -> KV.of(i % 2 == 0 ? "even" : "odd", i)))
        .apply(Sum.longsPerKey())
        .apply(MapElements.into(TypeDescriptors.strings()).via(kv -> kv.getKey() + "=" + kv.getValue()))
        .apply(TextIO.write().to(out.resolve("sums").toString()));
    assertThat(p.run().waitUntilFinish(), is(PipelineResult.State.DONE));
    List<String> lines = new ArrayList<>();
    try (Stream<Path> files = Files.list(out)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith("sums")).toList()) {
        lines.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
      }
    }
    lines.sort(null);
    return lines;
  }

  @Test
  void theLocalClusterStartsBeforeTheJobIsSubmittedAndRunsIt() throws IOException {
    FlinkPipelineOptions o = configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");
    assertThat("Beam's runner takes a context environment for [auto] only", o.getFlinkMaster(), is("[auto]"));
    assertThat("what the user named is what is shown", LocalFlink.shownMaster(o.getFlinkMaster()), is("[local]"));
    assertThat(EarlyLocalCluster.pending(), is(true));

    assertThat(sumByParity(o, 1000), is(List.of("even=250500", "odd=250000")));
    assertThat("the cluster started early ran the job", EarlyLocalCluster.lastOutcome(),
        is(EarlyLocalCluster.Outcome.USED));
    assertThat("one environment only", EarlyLocalCluster.pending(), is(false));
    assertThat(LocalFlink.shownMaster("[auto]"), is("[auto]"));

    FlinkPipelineOptions auto = configured(Map.of(), "--runner=FlinkRunner", "--parallelism=2");
    assertThat(LocalFlink.shownMaster(auto.getFlinkMaster()), is("[auto]"));
    assertThat(sumByParity(auto, 10), is(List.of("even=30", "odd=25")));
    assertThat(EarlyLocalCluster.lastOutcome(), is(EarlyLocalCluster.Outcome.USED));
  }

  @Test
  void aJobThatAsksForAnotherClusterGetsItsOwn() throws IOException {
    FlinkPipelineOptions o = configured(Map.of(), "--runner=FlinkRunner", "--parallelism=2");
    // started for three slots, where the job of parallelism 2 asks Flink's executor for two
    EarlyLocalCluster.install(o.getFlinkConfDir(), 3, false);
    assertThat(sumByParity(o, 100), is(List.of("even=2550", "odd=2500")));
    assertThat(EarlyLocalCluster.lastOutcome(), is(EarlyLocalCluster.Outcome.REPLACED));
  }

  @Test
  void noClusterIsStartedEarlyForAnotherClusterOrRunner() {
    configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]");
    assertThat(EarlyLocalCluster.pending(), is(true));
    FlinkPipelineOptions inFlinkRun =
        configured(Map.of("FLINK_CONF_DIR", "/etc/flink"), "--runner=FlinkRunner", "--flinkMaster=[auto]");
    assertThat("flink run's own environment is left to it", EarlyLocalCluster.pending(), is(false));
    assertThat(inFlinkRun.getFlinkMaster(), is("[auto]"));
    assertThat(LocalFlink.shownMaster("[auto]"), is("[auto]"));
    configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]");
    assertThat(configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=127.0.0.1:8081").getFlinkMaster(),
        is("127.0.0.1:8081"));
    assertThat(EarlyLocalCluster.pending(), is(false));
    assertThat(configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]", "--flinkConfDir=/etc/flink")
        .getFlinkMaster(), is("[local]"));
    assertThat(EarlyLocalCluster.pending(), is(false));
    configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]");
    System.setProperty(LocalFlink.EARLY_PROPERTY, "off");
    try {
      FlinkPipelineOptions off = configured(Map.of(), "--runner=FlinkRunner", "--flinkMaster=[local]");
      assertThat("the local cluster still gets its configuration", off.getFlinkConfDir(), notNullValue());
      assertThat(off.getFlinkMaster(), is("[local]"));
      assertThat(EarlyLocalCluster.pending(), is(false));
    } finally {
      System.clearProperty(LocalFlink.EARLY_PROPERTY);
    }
  }
}
