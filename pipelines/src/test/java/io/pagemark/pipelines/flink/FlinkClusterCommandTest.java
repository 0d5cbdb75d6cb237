package io.pagemark.pipelines.flink;

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
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.backfill.BackfillMain;
import io.pagemark.testing.flink.FlinkCluster;

/** {@code pagemark flink-cluster} and the Flink runner's launch settings, without starting Flink (the IT does that). */
class FlinkClusterCommandTest {
  @TempDir Path dir;

  @Test
  void aFolderWithOtherFilesIsNeverCleared() throws Exception {
    Path precious = Files.createDirectories(dir.resolve("mine/log")).resolve("notes.txt");
    Files.writeString(precious, "keep me");
    BackfillIT.Result r = BackfillIT.cli("flink-cluster", "start", "--dir=" + dir.resolve("mine"));
    assertThat(r.code(), is(1));
    assertThat(r.err(), containsString("is not empty and was not made by pagemark flink-cluster"));
    assertThat(Files.readString(precious), equalTo("keep me"));
  }

  @Test
  void badOptionsAreUsageErrors() {
    assertThat(BackfillIT.cli("flink-cluster").code(), is(2));
    BackfillIT.Result r = BackfillIT.cli("flink-cluster", "restart");
    assertThat(r.code(), is(2));
    assertThat(r.err(), containsString("unknown action \"restart\" (start, stop or status)"));
    r = BackfillIT.cli("flink-cluster", "start", "--taskmanagers=0", "--dir=" + dir);
    assertThat(r.code(), is(2));
    assertThat(r.err(), containsString("--taskmanagers must be between 1 and 16, not 0"));
    r = BackfillIT.cli("flink-cluster", "start", "--taskManagerMemory=lots", "--dir=" + dir);
    assertThat(r.code(), is(2));
    assertThat(r.err(), containsString("--taskManagerMemory must look like 1280m or 2g, not \"lots\""));
    r = BackfillIT.cli("flink-cluster", "status", "--taskmanagers=2", "--dir=" + dir);
    assertThat(r.code(), is(2));
    assertThat(r.err(), containsString("unknown option --taskmanagers"));
  }

  @Test
  void withoutAClusterStatusIsNotFoundAndStopHasNothingToDo() {
    BackfillIT.Result status = BackfillIT.cli("flink-cluster", "status", "--dir=" + dir);
    assertThat(status.code(), is(3));
    assertThat(status.err(), containsString("no cluster is running in " + dir + "; start one with:"));
    BackfillIT.Result stop = BackfillIT.cli("flink-cluster", "stop", "--dir=" + dir);
    assertThat(stop.code(), is(0));
    assertThat(stop.out(), containsString("nothing to stop"));
  }

  @Test
  void aRecordedProcessIdThatIsNoLongerFlinkIsNeverSignalled() throws Exception {
    Process stranger = new ProcessBuilder("sleep", "120").start();
    try {
      Files.writeString(dir.resolve(FlinkCluster.STATE_FILE), String.join("\n", "rest.address=127.0.0.1:1",
          "taskmanagers=1", "slots=2", "jobmanager.memory=768m", "taskmanager.memory=1280m",
          "jobmanager.pid=" + stranger.pid(), "taskmanager.pids=" + stranger.pid()));
      FlinkCluster c = FlinkCluster.find(dir).orElseThrow();
      assertThat(c.status().jobManagerAlive(), is(false));
      assertThat(BackfillIT.cli("flink-cluster", "status", "--dir=" + dir).code(), is(3));
      assertThat(c.stop(), is(0));
      assertThat(stranger.waitFor(500, TimeUnit.MILLISECONDS), is(false));
      assertThat(stranger.isAlive(), is(true));
      assertThat(FlinkCluster.find(dir), equalTo(Optional.empty()));
    } finally {
      stranger.destroyForcibly();
    }
  }

  @Test
  void flinkRunGetsTheFlinkRunnerUnlessTheArgumentsNameOne() {
    assertThat(BackfillMain.withFlinkRunner(List.of("--table=t")),
        equalTo(List.of("--table=t", "--runner=FlinkRunner")));
    assertThat(BackfillMain.withFlinkRunner(List.of("--runner=DirectRunner")),
        equalTo(List.of("--runner=DirectRunner")));
  }

  @Test
  void onlyHostAndPortNameACluster() {
    assertThat(FlinkTarget.isRemote("[local]"), is(false));
    assertThat(FlinkTarget.isRemote("[auto]"), is(false));
    assertThat(FlinkTarget.isRemote("127.0.0.1:8081"), is(true));
    assertThat(FlinkProgress.line(Optional.empty(), "job", 12.4),
        equalTo("progress: running on Flink, 12 s (Beam's counts arrive when the job ends)"));
  }

}
