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
    assertThat("C2 waits for three times its default calls", flink, hasItem("-XX:Tier4InvocationThreshold=15000"));
    assertThat(direct, hasItems("-XX:+UseParallelGC", "-XX:TieredStopAtLevel=1"));
    assertThat(ChildJvm.buildFlags(repo, List.of()), is(direct)); // the DirectRunner is Beam's default
    Path directives = repo.toAbsolutePath().normalize().resolve("pipelines").resolve("build-compiler.json");
    assertThat(flink, hasItem("-XX:CompilerDirectivesFile=" + directives)); // {dir}, as bin/pagemark reads it
    assertThat(Files.isRegularFile(directives), is(true));
    String launcher = Files.readString(repo.resolve("bin").resolve("pagemark"));
    assertThat(launcher, containsString("pipelines/build-jvm.options"));
    assertThat(launcher, containsString("pipelines/direct-jvm.options"));
  }

  /** An archive is named by its jars' paths, sizes and times: a rebuilt jar gets a new archive. */
  @Test
  void classDataArchivesAreNamedByTheirJars(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path jar = Files.writeString(dir.resolve("a.jar"), "one");
    String before = ClassData.key(List.of(jar));
    assertThat(ClassData.key(List.of(jar)), is(before));
    Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(0));
    String touched = ClassData.key(List.of(jar));
    assertThat(touched, not(is(before)));
    Files.writeString(jar, "two!");
    Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(0));
    assertThat(ClassData.key(List.of(jar)), not(is(touched)));
    assertThat(ClassData.key(List.of(jar, dir.resolve("b.jar"))), not(is(ClassData.key(List.of(jar)))));
  }

  /** The second layer sits beside the first under bin/pagemark's name for it, and a build maps both. */
  @Test
  void theSecondLayerIsNamedAsBinPagemarkNamesIt() throws Exception {
    Path first = Path.of("/x/.pagemark/cds/bench-flink-0123abcd.jsa");
    Path top = ClassData.topLayer(first);
    assertThat(top, is(Path.of("/x/.pagemark/cds/bench-flink-0123abcd.top.jsa")));
    assertThat(ClassData.sharedArchiveFlag(first, top), is("-XX:SharedArchiveFile=" + first + ":" + top));
    assertThat(ClassData.sharedArchiveFlag(first, null), is("-XX:SharedArchiveFile=" + first));
    String launcher = Files.readString(Path.of("..").resolve("bin").resolve("pagemark"));
    assertThat(launcher, containsString("\"-XX:SharedArchiveFile=$cds_archive:${cds_archive%.jsa}.top.jsa\""));
  }

  /** The untimed build that lists the classes runs on the runner of the build it serves, and nothing else of it. */
  @Test
  void classDataIsTrainedOnTheSameRunner() {
    assertThat(ClassData.runnerOptions(List.of("10000000", "10000", "/tmp/x", "--runner=FlinkRunner",
        "--flinkMaster=[local]", "--parallelism=2", "--table=t", "--endpoint=http://127.0.0.1:8000")),
        is(List.of("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2")));
    assertThat(ClassData.runnerOptions(List.of("--runner=FlinkRunner", "--flinkMaster=127.0.0.1:8081")),
        is(List.of("--runner=FlinkRunner", "--flinkMaster=[local]")));
    assertThat(ClassData.runnerOptions(List.of("--enforceImmutability=false", "--tempLocation=/tmp")),
        is(List.of("--enforceImmutability=false")));
  }
}
