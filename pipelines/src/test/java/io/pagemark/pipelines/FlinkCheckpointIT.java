package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.pipelines.stream.StreamMain;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.KinesaliteExtension;
import io.pagemark.testing.flink.FlinkCluster;
import io.pagemark.testing.flink.FlinkClusterExtension;
import io.pagemark.testing.flink.FlinkJvm;
import io.pagemark.transforms.source.KinesisConnection;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The stream on a session cluster of 2 TaskManagers with checkpoints, submitted the way an operator does it, with
 * {@code flink run -c io.pagemark.pipelines.stream.StreamMain pagemark-flink.jar}: while writes flow (relayed from
 * DynamoDB Local into kinesalite, 10% duplicated), one TaskManager is SIGKILLed and started again. The job restarts
 * from its last checkpoint by itself (the same {@code flink run} process follows it throughout), and after SIGTERM and
 * a commit every page of every group, in both orders, is DynamoDB's own page. The cluster is the test JVM's shared
 * one ({@link FlinkClusterExtension}); the TaskManager started again takes the dead one's place in its state folder,
 * so later tests find the cluster whole (had this test failed before that, the extension starts a new cluster).
 */
@ExtendWith({DynamoDbLocalExtension.class, KinesaliteExtension.class})
class FlinkCheckpointIT {
  static final String TABLE = "flinkCheckpoint";
  static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  @Test
  @ExtendWith(FlinkClusterExtension.class)
  void aTaskManagerKilledMidStreamIsRecoveredFromTheLastCheckpointAndNoChangeIsLost(DynamoDbLocal local,
      Kinesalite kinesalite, FlinkCluster cluster) throws Exception {
    Path jar = Path.of(System.getProperty(FlinkTarget.JAR_PROPERTY, "target/pagemark-flink.jar")).toAbsolutePath();
    assertThat("the Flink job jar " + jar + " must be built before this test (the test command builds it)",
        Files.isRegularFile(jar), is(true));
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    long t = System.nanoTime();
    Process run = null;
    try (DynamoDbClient c = local.client()) {
      Path index = dir.resolve("index");
      kinesalite.createStream(TABLE, 2);
      StreamTable.create(c, TABLE);
      BackfillIT.Result empty = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + StreamTable.GSI,
          "--output=" + index, "--segments=1");
      assertThat(empty.err(), empty.code(), is(0));
      StreamTable.Writer writer = new StreamTable.Writer(c, TABLE, 150, seed);
      try (Relay relay = Relay.start(local.connection(), TABLE,
          new KinesisConnection(kinesalite.endpoint(), kinesalite.region()), TABLE, new Relay.Options(0.1, 30, seed))) {
        writer.write(60);
        String rest = cluster.restAddress();
        phase("table and index ready", t);
        Path log = dir.resolve("flink-run.log");
        String checkpoints = dir.resolve("checkpoints").toUri().toString();
        run = flinkRun(cluster, jar, log, "--stream=" + TABLE, "--kinesisEndpoint=" + kinesalite.endpoint(),
            "--output=" + index, "--table=" + TABLE, "--gsi=" + StreamTable.GSI, "--dynamoEndpoint="
                + local.endpoint(), "--flushMillis=500", "--watermarkIdleSeconds=20", "--progressSeconds=2",
            "--checkpointSeconds=2",
            "--stateBackendStoragePath=" + checkpoints);
        Process launcher = run;
        String job = awaitJob(launcher, log);
        StreamIT.awaitTrue(Duration.ofSeconds(120), () -> completed(rest, job) > 0 && StreamIT.segments(index) > 0
            || !launcher.isAlive(), "no checkpoint completed and no WAL segment was written");
        assertThat(StreamIT.log(log), launcher.isAlive(), is(true));
        assertThat(StreamIT.log(log), containsString("pagemark stream: Flink checkpoints every 2,000 ms to "
            + checkpoints + ";"));
        phase("stream appending, checkpoint " + completed(rest, job) + " done", t);

        writer.write(60);
        cluster.killTaskManager(1);
        phase("TaskManager 1 killed", t);
        writer.write(60);
        cluster = cluster.restartTaskManager(1);
        phase("TaskManager 1 started again", t);
        StreamIT.awaitTrue(Duration.ofSeconds(120), () -> restored(rest, job) && completedAfterRestore(rest, job)
            || !launcher.isAlive(), "the job did not restore a checkpoint and complete a new one");
        assertThat(StreamIT.log(log), launcher.isAlive(), is(true));
        assertThat("the same job runs on", state(rest, job), is("RUNNING"));
        phase("job restored from checkpoint " + get(rest, "/jobs/" + job + "/checkpoints").path("latest")
            .path("restored").path("id").asLong(), t);
        writer.write(60);

        relay.awaitIdle(Duration.ofSeconds(120));
        assertThat(relay.duplicated(), greaterThan(5L));
        Map<String, String> last = ShardPositions.lastSequenceNumbers(kinesalite, TABLE);
        StreamIT.awaitPositions(index, null, null, last, launcher);
        assertThat(StreamIT.log(log), launcher.isAlive(), is(true));
        phase("stream caught up", t);

        launcher.destroy(); // SIGTERM: flink run's JVM runs StreamMain, which cancels the job
        assertThat(launcher.waitFor(60, TimeUnit.SECONDS), is(true));
        String out = StreamIT.log(log);
        assertThat(out, launcher.exitValue(), is(0));
        assertThat(out, containsString("pagemark stream: stopped after"));
        StreamIT.awaitTrue(Duration.ofSeconds(60), () -> state(rest, job).equals("CANCELED"),
            "the job " + job + " was not cancelled");

        BackfillIT.Result commit = BackfillIT.cli("commit", "--index=" + index, "--dynamoEndpoint=" + local.endpoint());
        assertThat(commit.err(), commit.code(), is(0));
        try (Index idx = Indexes.open(index.toString())) {
          BuildInfo.Commit built = new IndexLayout(index).buildInfo(idx.buildId()).commit();
          assertThat(built.applied(), greaterThan(60L));
        }
        StreamTable.assertEveryPageIsDynamoDbsPage(c, TABLE, index, StreamIT.PAGE);
        phase("every page checked", t);
      }
    } catch (AssertionError e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    } finally {
      if (run != null && run.isAlive()) {
        run.destroyForcibly();
      }
    }
  }

  /** {@code flink run -c StreamMain JAR ARGS}: Flink's CliFrontend in a JVM of its own, as bin/flink runs it. */
  static Process flinkRun(FlinkCluster cluster, Path jar, Path log, String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Daws.cborEnabled=false"));
    cmd.addAll(FlinkJvm.JAVA_17_FLAGS);
    cmd.addAll(List.of("-cp", FlinkJvm.lib() + "/*", "org.apache.flink.client.cli.CliFrontend", "run",
        "-m", cluster.restAddress(), "-p", "4", "-c", StreamMain.class.getName(), jar.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("FLINK_CONF_DIR", cluster.dir().resolve("conf").toString());
    return pb.start();
  }

  /** The id of the job {@code flink run} submitted ("Job has been submitted with JobID ..."), once it says it. */
  static String awaitJob(Process launcher, Path log) throws Exception {
    java.util.regex.Pattern submitted =
        java.util.regex.Pattern.compile("Job has been submitted with JobID ([0-9a-f]{32})");
    StreamIT.awaitTrue(Duration.ofSeconds(120), () -> {
      try {
        return submitted.matcher(StreamIT.log(log)).find() || !launcher.isAlive();
      } catch (IOException e) {
        return false;
      }
    }, "flink run submitted no job");
    java.util.regex.Matcher m = submitted.matcher(StreamIT.log(log));
    assertThat(StreamIT.log(log), m.find(), is(true));
    return m.group(1);
  }

  static JsonNode get(String rest, String path) throws IOException {
    try {
      HttpResponse<String> r = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://" + rest + path)).timeout(java.time.Duration.ofSeconds(10))
              .build(), HttpResponse.BodyHandlers.ofString());
      return JSON.readTree(r.body());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  static long completed(String rest, String job) {
    try {
      return get(rest, "/jobs/" + job + "/checkpoints").path("counts").path("completed").asLong();
    } catch (IOException e) {
      return 0;
    }
  }

  static boolean restored(String rest, String job) {
    try {
      return get(rest, "/jobs/" + job + "/checkpoints").path("latest").path("restored").has("id");
    } catch (IOException e) {
      return false;
    }
  }

  /** Whether a checkpoint completed after the restore (the restarted job runs and makes progress). */
  static boolean completedAfterRestore(String rest, String job) {
    try {
      JsonNode latest = get(rest, "/jobs/" + job + "/checkpoints").path("latest");
      return latest.path("completed").path("id").asLong() > latest.path("restored").path("id").asLong();
    } catch (IOException e) {
      return false;
    }
  }

  static String state(String rest, String job) {
    try {
      return get(rest, "/jobs/" + job).path("state").asText();
    } catch (IOException e) {
      return e.getMessage();
    }
  }

  private static void phase(String what, long since) {
    System.err.printf("FlinkCheckpointIT: %s after %.0f s%n", what, (System.nanoTime() - since) / 1e9);
  }
}
