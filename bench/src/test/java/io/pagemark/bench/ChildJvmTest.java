package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.not;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChildJvmTest {
  @Test
  void readsTheResultLinesFields() {
    assertThat(ChildJvm.fields(" seconds=12.5 entries=200000  vmHwmKb=1024 "),
        is(Map.of("seconds", "12.5", "entries", "200000", "vmHwmKb", "1024")));
  }

  /** The suite times builds with the flags bin/pagemark gives its batch commands, read from one file. */
  @Test
  void buildsRunWithTheLaunchersBatchFlags() throws Exception {
    Path repo = Path.of("..");
    List<String> flink = ChildJvm.buildFlags(repo, List.of("--runner=FlinkRunner", "--flinkMaster=[local]"));
    List<String> direct = ChildJvm.buildFlags(repo, List.of("--runner=DirectRunner"));
    assertThat(flink, hasItem("-XX:+UseParallelGC"));
    assertThat(flink, not(hasItem("-XX:TieredStopAtLevel=1")));
    assertThat(direct, hasItems("-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1"));
    assertThat(ChildJvm.buildFlags(repo, List.of()), is(direct)); // the DirectRunner is Beam's default
    String launcher = Files.readString(repo.resolve("bin").resolve("pagemark"));
    assertThat(launcher, containsString("pipelines/build-jvm.options"));
    assertThat(launcher, containsString("pipelines/direct-jvm.options"));
  }
}
