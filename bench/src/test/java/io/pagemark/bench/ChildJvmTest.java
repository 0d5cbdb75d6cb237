package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;

import java.nio.file.Files;
import java.nio.file.Path;
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
    assertThat(ChildJvm.buildFlags(repo), hasItem("-XX:+UseParallelGC"));
    assertThat(Files.readString(repo.resolve("bin").resolve("pagemark")), containsString("pipelines/build-jvm.options"));
  }
}
