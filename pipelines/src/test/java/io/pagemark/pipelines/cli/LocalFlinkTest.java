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
import org.apache.flink.configuration.NettyShuffleEnvironmentOptions;
import org.junit.jupiter.api.Test;

/**
 * Flink's local cluster gets uncompressed batch exchanges unless the user names a Flink configuration; nothing else
 * is touched.
 */
class LocalFlinkTest {
  private static FlinkPipelineOptions configured(Map<String, String> environment, String... args) {
    FlinkPipelineOptions o = PipelineOptionsFactory.fromArgs(args).as(FlinkPipelineOptions.class);
    LocalFlink.configure(o, environment::get);
    return o;
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
