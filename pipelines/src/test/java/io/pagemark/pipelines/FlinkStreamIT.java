package io.pagemark.pipelines;

import io.pagemark.pipelines.flink.FlinkRest;
import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.KinesaliteExtension;
import io.pagemark.testing.flink.FlinkCluster;
import io.pagemark.testing.flink.FlinkClusterExtension;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark stream} on Flink: inside the launcher's JVM ({@code [local]}) and submitted to a standalone session
 * cluster of 2 TaskManagers ({@link FlinkClusterExtension}, whose JVMs are not given
 * {@code -Daws.cborEnabled=false}: the stream must turn CBOR off where the Kinesis client is built). Each run indexes
 * an empty table's build, then 500 random writes relayed from DynamoDB Local into kinesalite with 10% of the records
 * duplicated, reach the index only through the stream's WAL; the launcher is stopped with SIGTERM (exit code 0, a
 * summary, the Flink job cancelled), and after a commit every page of every group, in both orders, must be DynamoDB's
 * own page. On the cluster the first launcher is killed (SIGKILL) halfway: its job keeps running until cancelled
 * through the REST API, as docs/stream.md says, and a second launcher resumes.
 */
@ExtendWith({DynamoDbLocalExtension.class, KinesaliteExtension.class})
class FlinkStreamIT {
  static final int WRITES = 500;
  /** A progress line printed while the stream runs, with records counted. */
  static final Pattern PROGRESS = Pattern.compile("(?s).*\nstream: [1-9][0-9,]* records read .*");
  @TempDir Path dir;
  DynamoDbLocal local;
  Kinesalite kinesalite;

  @BeforeEach
  void services(DynamoDbLocal local, Kinesalite kinesalite) {
    this.local = local;
    this.kinesalite = kinesalite;
  }

  @Test
  void onFlinkInsideTheLauncherEveryChangeReachesTheIndexAndSigtermStopsIt() throws Exception {
    String log = streamAndCheck("flinkLocal", null, "--runner=FlinkRunner", "--flinkMaster=[local]");
    assertThat(log, containsString("pagemark stream: running on Flink in this JVM ([local])"));
  }

  @Test
  @ExtendWith(FlinkClusterExtension.class)
  void onASessionClusterEveryChangeReachesTheIndexAndSigtermCancelsTheJob(FlinkCluster cluster) throws Exception {
    Path jar = Path.of(System.getProperty(FlinkTarget.JAR_PROPERTY, "target/pagemark-flink.jar")).toAbsolutePath();
    assertThat("the Flink job jar " + jar + " must be built before this test (the test command builds it)",
        Files.isRegularFile(jar), is(true));
    String rest = cluster.restAddress();
    String log = streamAndCheck("flinkCluster", rest, "--runner=FlinkRunner", "--flinkMaster=" + rest);
    assertThat(log, containsString("pagemark stream: submitting to the Flink cluster at http://" + rest
        + " (Flink 1.19.0, 2 TaskManagers, 4 slots) with parallelism 4, staging " + jar));
    assertThat("no job of the stream runs after its launchers stopped",
        new FlinkRest(rest).jobs().stream().filter(j -> !j.state().matches("CANCELED|FINISHED|FAILED")).toList(),
        is(List.of()));
  }

  /**
   * The scenario of the class comment on one table; {@code cluster} is the REST address when the stream is submitted
   * to a cluster (the first launcher is then killed halfway). Returns the output of the launcher stopped by SIGTERM.
   */
  private String streamAndCheck(String table, String cluster, String... runner) throws Exception {
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    long t = System.nanoTime();
    Path index = dir.resolve(table);
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
      BackfillIT.Result empty = BackfillIT.backfill(local, "--table=" + table, "--gsi=" + StreamTable.GSI,
          "--output=" + index, "--segments=1");
      assertThat(empty.err(), empty.code(), is(0));
      phase(table + ": empty index built", t);
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 200, seed);
      try (Relay relay = Relay.start(local.connection(), table, new io.pagemark.transforms.source.KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table,
          new Relay.Options(0.1, 30, seed))) {
        writer.write(100);
        Path firstLog = dir.resolve(table + "-first.log");
        Process first = StreamIT.startStream(local, kinesalite, table, index, firstLog, runner);
        StreamIT.awaitTrue(Duration.ofSeconds(180), () -> StreamIT.segments(index) > 0 || !first.isAlive(),
            "the stream wrote no WAL segment");
        assertThat(StreamIT.log(firstLog), first.isAlive(), is(true));
        phase(table + ": stream appending", t);
        Process running = first;
        Path runningLog = firstLog;
        if (cluster != null) {
          writer.write(WRITES / 2 - 100);
          running = killAndResume(cluster, local, kinesalite, table, index, first, firstLog);
          phase(table + ": killed, cancelled, resumed", t);
          runningLog = dir.resolve(table + "-second.log");
          writer.write(WRITES / 2);
        } else {
          writer.write(WRITES - 100);
        }
        relay.awaitIdle(Duration.ofSeconds(120));
        assertThat(relay.duplicated(), greaterThan(10L));
        Map<String, String> last = ShardPositions.lastSequenceNumbers(kinesalite, table);
        Process stream = running;
        StreamIT.awaitPositions(index, null, null, last, stream);
        assertThat(StreamIT.log(runningLog), stream.isAlive(), is(true));
        phase(table + ": stream caught up", t);
        // Flink's counters reach the launcher through its REST API a few seconds late: a stream that caught up
        // quickly may not have printed a counted progress line yet.
        Path progressLog = runningLog;
        StreamIT.awaitTrue(Duration.ofSeconds(60), () -> {
          try {
            return PROGRESS.matcher(StreamIT.log(progressLog)).matches() || !stream.isAlive();
          } catch (IOException e) {
            return false;
          }
        }, "no progress line with counts");

        stream.destroy(); // SIGTERM
        assertThat(stream.waitFor(60, TimeUnit.SECONDS), is(true));
        String log = StreamIT.log(runningLog);
        assertThat(log, stream.exitValue(), is(0));
        assertThat(log, containsString("pagemark stream: stopped after"));
        assertThat(log, containsString(", 0 dead letters"));
        assertThat("progress lines with counts while it runs", log, matchesPattern(PROGRESS));
        phase(table + ": stream stopped", t);

        BackfillIT.Result commit =
            BackfillIT.cli("commit", "--index=" + index, "--dynamoEndpoint=" + local.endpoint());
        assertThat(commit.err(), commit.code(), is(0));
        try (Index idx = Indexes.open(index.toString())) {
          BuildInfo.Commit built = new IndexLayout(index).buildInfo(idx.buildId()).commit();
          assertThat(built.applied(), greaterThan(100L));
          assertThat("duplicates", built.stale(), greaterThan(0L));
        }
        StreamTable.assertEveryPageIsDynamoDbsPage(c, table, index, StreamIT.PAGE);
        phase(table + ": every page checked", t);
        return log;
      }
    } catch (AssertionError e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
  }

  /**
   * Kills the launcher of a stream on a cluster (SIGKILL: no shutdown hook runs), checks that its job runs on, cancels
   * it the way docs/stream.md says (PATCH /jobs/ID?mode=cancel), and starts a launcher that resumes.
   */
  private Process killAndResume(String cluster, DynamoDbLocal local, Kinesalite kinesalite, String table,
      Path index, Process first, Path firstLog) throws Exception {
    Matcher m = Pattern.compile("pagemark stream: Flink job ([0-9a-f]{32}) on http://").matcher(
        StreamIT.log(firstLog));
    assertThat(StreamIT.log(firstLog), m.find(), is(true));
    String job = m.group(1);
    first.destroyForcibly();
    assertThat(first.waitFor(30, TimeUnit.SECONDS), is(true));
    assertThat(first.exitValue(), not(is(0)));
    assertThat("the job outlives a killed launcher", state(cluster, job), is(Optional.of("RUNNING")));
    HttpResponse<String> cancel = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://" + cluster + "/jobs/" + job + "?mode=cancel"))
            .method("PATCH", HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(cancel.body(), cancel.statusCode(), is(202));
    StreamIT.awaitTrue(Duration.ofSeconds(60), () -> state(cluster, job).equals(Optional.of("CANCELED")),
        "the job " + job + " was not cancelled");
    return StreamIT.startStream(local, kinesalite, table, index, dir.resolve(table + "-second.log"),
        "--runner=FlinkRunner", "--flinkMaster=" + cluster);
  }

  private static Optional<String> state(String cluster, String job) {
    try {
      return new FlinkRest(cluster).jobs().stream().filter(j -> j.id().equals(job)).map(FlinkRest.Job::state)
          .findFirst();
    } catch (IOException e) {
      return Optional.of(e.getMessage());
    }
  }

  private static void phase(String what, long since) {
    System.err.printf("FlinkStreamIT: %s after %.0f s%n", what, (System.nanoTime() - since) / 1e9);
  }
}
