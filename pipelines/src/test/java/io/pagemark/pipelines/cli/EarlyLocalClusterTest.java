package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.flink.api.java.ExecutionEnvironment;
import org.apache.flink.api.java.LocalEnvironment;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch pipeline on Flink's local cluster, as pagemark's commands configure it ({@link LocalFlink#configure}), runs
 * on a cluster started while Beam translates it, gives the same results, and leaves Flink's context as it was; with
 * {@code -Dpagemark.flinkLocal.early=off}, or a configuration of the user's, Beam's own local cluster runs it.
 */
class EarlyLocalClusterTest {
  @AfterEach
  void withdraw() {
    EarlyLocalCluster.withdraw();
    System.clearProperty(LocalFlink.EARLY_PROPERTY);
  }

  private static FlinkPipelineOptions configured(String... args) {
    FlinkPipelineOptions o = PipelineOptionsFactory.fromArgs(args).as(FlinkPipelineOptions.class);
    LocalFlink.configure(o, Map.<String, String>of()::get, 2);
    return o;
  }

  /** Runs a pipeline with a group-by-key (an exchange between the two tasks) and checks its sums. */
  private static void sums(FlinkPipelineOptions o) {
    Pipeline p = Pipeline.create(o);
    List<Integer> numbers = IntStream.range(0, 1_000).boxed().collect(Collectors.toCollection(ArrayList::new));
    Collections.shuffle(numbers);
    PCollection<KV<Integer, Integer>> sums = p.apply(Create.of(numbers))
        .apply(MapElements.into(TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.integers()))
            .via(n -> KV.of(n % 3, n)))
        .apply(GroupByKey.create())
        .apply(MapElements.into(TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.integers()))
            .via(kv -> KV.of(kv.getKey(), Sum.ofIntegers().apply(kv.getValue()))));
    // 0 + 3 + ... + 999, 1 + 4 + ... + 997, 2 + 5 + ... + 998
    PAssert.that(sums).containsInAnyOrder(KV.of(0, 166_833), KV.of(1, 166_167), KV.of(2, 166_500));
    assertThat(p.run().waitUntilFinish(), is(PipelineResult.State.DONE));
  }

  @Test
  void aBatchPipelineRunsOnAClusterStartedWhileBeamTranslatesIt() {
    FlinkPipelineOptions o = configured("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");
    assertThat("Beam takes the environment Flink's context offers", o.getFlinkMaster(), is("[auto]"));
    int before = EarlyLocalCluster.STARTED.get();
    sums(o);
    assertThat("one cluster started early", EarlyLocalCluster.STARTED.get(), is(before + 1));
    assertThat("the context is Flink's again", ExecutionEnvironment.getExecutionEnvironment(),
        instanceOf(LocalEnvironment.class));

    sums(configured("--runner=FlinkRunner", "--parallelism=2"));
    assertThat("each run starts its own", EarlyLocalCluster.STARTED.get(), is(before + 2));
  }

  @Test
  void offOrAConfigurationOfTheUsersLeavesTheClusterToBeam() {
    System.setProperty(LocalFlink.EARLY_PROPERTY, "off");
    int before = EarlyLocalCluster.STARTED.get();
    FlinkPipelineOptions off = configured("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");
    assertThat(off.getFlinkMaster(), is("[local]"));
    sums(off);
    System.clearProperty(LocalFlink.EARLY_PROPERTY);
    FlinkPipelineOptions users = configured("--runner=FlinkRunner", "--flinkMaster=[local]",
        "--flinkConfDir=" + off.getFlinkConfDir(), "--parallelism=2");
    assertThat(users.getFlinkMaster(), is("[local]"));
    sums(users);
    assertThat("no cluster started early", EarlyLocalCluster.STARTED.get(), is(before));
  }

  @Test
  void theClusterGetsTheConfigurationBeamWouldGiveItsOwn() {
    FlinkPipelineOptions o = configured("--runner=FlinkRunner", "--parallelism=2");
    Configuration c = EarlyLocalCluster.configuration(Path.of(o.getFlinkConfDir()));
    assertThat("LocalFlink's network buffers", c.get(TaskManagerOptions.MEMORY_SEGMENT_SIZE).toString(),
        is(MemorySize.parse(LocalFlink.LARGE_SEGMENT).toString()));
    assertThat("a random REST port", c.get(RestOptions.BIND_PORT), is("0"));
    assertThat(c.getBoolean("classloader.check-leaked-classloader", true), is(false));
    long managed = c.get(TaskManagerOptions.MANAGED_MEMORY_SIZE).getBytes();
    long max = Runtime.getRuntime().maxMemory();
    assertThat("managed memory: a fraction of the free heap", managed > 0 && managed < max * 0.41, is(true));
  }
}
