package io.pagemark.testing.flink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The session cluster's configuration and state folder, without starting Flink (the IT does that). */
class FlinkClusterTest {
  @TempDir Path dir;

  @Test
  void configurationBindsEverythingToLoopbackWithTheSpecsMemory() {
    String yaml = FlinkClusterFiles.config(new FlinkCluster.Spec(3, 4, "1g", "2g"), 18081, 16123, dir);
    for (String line : List.of("jobmanager.rpc.address: 127.0.0.1", "jobmanager.bind-host: 127.0.0.1",
        "taskmanager.bind-host: 127.0.0.1", "taskmanager.host: 127.0.0.1", "rest.address: 127.0.0.1",
        "rest.bind-address: 127.0.0.1", "rest.port: 18081", "jobmanager.rpc.port: 16123",
        "taskmanager.numberOfTaskSlots: 4", "jobmanager.memory.process.size: 1g",
        "taskmanager.memory.process.size: 2g", "taskmanager.memory.network.min: 128m",
        "io.tmp.dirs: " + dir)) {
      assertThat(yaml.lines().toList(), hasItem(line));
    }
    assertThat(yaml, not(containsString("0.0.0.0")));
  }

  @Test
  void theMemoryCalculatorsLinesBecomeJvmFlagsAndDynamicProperties() {
    List<String> jvm = new ArrayList<>();
    List<String> dynamic = new ArrayList<>();
    FlinkJvm.split(List.of("-Xmx100 -Xms100", "-D a=1b -D b.c=2"), jvm, dynamic);
    assertThat(jvm, equalTo(List.of("-Xmx100", "-Xms100")));
    assertThat(dynamic, equalTo(List.of("-D", "a=1b", "-D", "b.c=2")));
    jvm.clear();
    dynamic.clear();
    FlinkJvm.split(List.of("-Xmx1", ""), jvm, dynamic);
    assertThat(dynamic, equalTo(List.of()));
  }

  @Test
  void aFreshStartClearsOnlyTheFoldersItMade() throws Exception {
    FlinkClusterFiles.write(dir.resolve("fresh"), FlinkCluster.Spec.of(1), 1, 2);
    Files.writeString(dir.resolve("fresh/log/old.log"), "old");
    FlinkClusterFiles.write(dir.resolve("fresh"), FlinkCluster.Spec.of(1), 1, 2);
    assertThat(Files.exists(dir.resolve("fresh/log/old.log")), is(false));
  }
}
