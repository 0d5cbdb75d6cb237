package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

import java.util.Map;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;

/**
 * Flink's local cluster gets uncompressed batch exchanges, and larger network buffers at a small parallelism, unless the
 * user names a Flink configuration; nothing else is touched.
 */
class LocalFlinkTest {
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
}
