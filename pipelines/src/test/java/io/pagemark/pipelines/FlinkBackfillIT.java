package io.pagemark.pipelines;

import io.pagemark.pipelines.flink.FlinkRest;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.flink.FlinkCluster;
import io.pagemark.testing.flink.FlinkJvm;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The tricky table built on the DirectRunner, on Flink inside this JVM ({@code [local]}), and on a standalone session
 * cluster of one JobManager and 2 TaskManager JVMs started (and stopped) by this test through {@code pagemark
 * flink-cluster}, submitted both by {@code pagemark backfill} (staging the shaded job jar) and by Flink's own {@code
 * flink run} of that jar: every group file is the same, byte for byte, apart from the build's id and time. The
 * cluster's state and logs stay in {@code target/flink-it} for a look after a failure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(DynamoDbLocalExtension.class)
class FlinkBackfillIT {
  static final String TABLE = "trickyFlink";
  @TempDir static Path dir;
  DynamoDbLocal local;
  DynamoDbClient client;
  List<Map<String, AttributeValue>> items;
  Path clusterDir;
  Path direct;
  Thread stopAtExit;

  @BeforeAll
  void createTableAndStartCluster(DynamoDbLocal local) throws Exception {
    Path jar = jar();
    assertThat("the Flink job jar " + jar + " must be built before this test (the test command builds it:"
        + " profile flink-jar, active unless -DskipTests)", Files.isRegularFile(jar), is(true));
    assertThat("the Flink job jar " + jar + " is older than target/classes; rebuild it with -Pflink-jar",
        newestFile(jar.resolveSibling("classes")) <= Files.getLastModifiedTime(jar).toMillis(), is(true));

    this.local = local;
    client = local.client();
    TrickyTable.create(client, TABLE);
    items = TrickyTable.items(11);
    SampleComments.load(client, TABLE, items, 2, null);

    clusterDir = Path.of("target", "flink-it").toAbsolutePath();
    stopAtExit = new Thread(() -> BackfillIT.cli("flink-cluster", "stop", "--dir=" + clusterDir));
    Runtime.getRuntime().addShutdownHook(stopAtExit);
    BackfillIT.cli("flink-cluster", "stop", "--dir=" + clusterDir); // a cluster left by a run that was killed
    long t = System.nanoTime();
    BackfillIT.Result start = BackfillIT.cli("flink-cluster", "start", "--taskmanagers=2", "--dir=" + clusterDir);
    took("cluster start", t);
    assertThat(start.err(), start.code(), is(0));
    assertThat(start.out(), containsString("with 2 TaskManagers and 4 slots"));

    direct = dir.resolve("direct");
    t = System.nanoTime();
    BackfillIT.Result d = backfill("--output=" + direct, "--segments=3", "--runner=DirectRunner");
    took("DirectRunner build", t);
    assertThat(d.err(), d.code(), is(0));
    BuildInfo.Counts c = counts(direct);
    assertThat(c.itemsScanned(), is((long) items.size()));
    assertThat(c.tieRuns(), greaterThan(0L));
  }

  @AfterAll
  void stopCluster() throws Exception {
    try {
      BackfillIT.Result stop = BackfillIT.cli("flink-cluster", "stop", "--dir=" + clusterDir);
      assertThat(stop.err(), stop.code(), is(0));
      assertThat(stop.out(), containsString("stopped 3 Flink processes"));
      BackfillIT.Result status = BackfillIT.cli("flink-cluster", "status", "--dir=" + clusterDir);
      assertThat(status.code(), is(3));
      assertThat(status.err(), containsString("no cluster is running"));
    } finally {
      if (stopAtExit != null) {
        Runtime.getRuntime().removeShutdownHook(stopAtExit);
      }
      if (client != null) {
        client.close();
      }
    }
  }

  @Test
  @Order(1)
  void statusShowsTheClusterWithItsTaskManagersAndSlots() throws IOException {
    BackfillIT.Result status = BackfillIT.cli("flink-cluster", "status", "--dir=" + clusterDir);
    assertThat(status.err(), status.code(), is(0));
    String rest = FlinkCluster.find(clusterDir).orElseThrow().restAddress();
    assertThat(rest, matchesPattern("127\\.0\\.0\\.1:\\d+"));
    assertThat(status.out(), containsString("REST and web UI: http://" + rest));
    assertThat(status.out(), containsString("TaskManagers:    2 registered, 2 of 2 processes alive"));
    assertThat(status.out(), containsString("Slots:           4 total, 4 available"));
    BackfillIT.Result again = BackfillIT.cli("flink-cluster", "start", "--dir=" + clusterDir);
    assertThat(again.code(), is(1));
    assertThat(again.err(), containsString("already running at http://" + rest));
  }

  @Test
  @Order(2)
  void localFlinkWritesTheSameGroupFilesAsTheDirectRunner() throws Exception {
    Path out = dir.resolve("flink-local");
    long t = System.nanoTime();
    BackfillIT.Result r = backfill("--output=" + out, "--segments=4", "--runner=FlinkRunner", "--flinkMaster=[local]");
    took("local Flink build", t);
    assertThat(r.err(), r.code(), is(0));
    assertThat(r.err(), containsString("running on Flink in this JVM ([local])"));
    assertSameBuild(out);
  }

  @Test
  @Order(3)
  void aSessionClusterWritesTheSameGroupFilesAsTheDirectRunner() throws Exception {
    String rest = FlinkCluster.find(clusterDir).orElseThrow().restAddress();
    int finishedBefore = new FlinkRest(rest).overview().jobsFinished();
    Path out = dir.resolve("flink-cluster");
    long t = System.nanoTime();
    BackfillIT.Result r = backfill("--output=" + out, "--segments=5", "--runner=FlinkRunner", "--flinkMaster=" + rest);
    took("session cluster build", t);
    assertThat(r.err(), r.code(), is(0));
    assertThat(r.err(), containsString("submitting to the Flink cluster at http://" + rest
        + " (Flink 1.19.0, 2 TaskManagers, 4 slots) with parallelism 4, staging " + jar()));
    assertThat("progress while the job runs on the cluster", r.err(),
        matchesPattern("(?s).*progress: Flink job [0-9a-f]{32} RUNNING, \\d+ of \\d+ tasks finished.*"));
    assertThat("the job ran on the cluster", new FlinkRest(rest).overview().jobsFinished(), is(finishedBefore + 1));
    assertSameBuild(out);
  }

  @Test
  @Order(4)
  void flinkRunSubmitsTheJobJarThroughItsMainClass() throws Exception {
    String rest = FlinkCluster.find(clusterDir).orElseThrow().restAddress();
    int finishedBefore = new FlinkRest(rest).overview().jobsFinished();
    Path out = dir.resolve("flink-run");
    // What bin/flink does: Flink's CliFrontend in a JVM of its own, configured by FLINK_CONF_DIR.
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(FlinkJvm.JAVA_17_FLAGS);
    cmd.addAll(List.of("-cp", FlinkJvm.lib() + "/*", "org.apache.flink.client.cli.CliFrontend", "run",
        "-m", rest, "-p", "2", jar().toString(), "--table=" + TABLE, "--gsi=" + TrickyTable.BY_STRING,
        "--output=" + out, "--dynamoEndpoint=" + local.endpoint(), "--segments=2"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("flink-run.log").toFile());
    pb.environment().put("FLINK_CONF_DIR", clusterDir.resolve("conf").toString());
    long t = System.nanoTime();
    Process p = pb.start();
    boolean ended = p.waitFor(5, TimeUnit.MINUTES);
    if (!ended) {
      p.destroyForcibly();
    }
    took("flink run", t);
    String log = Files.readString(dir.resolve("flink-run.log"));
    assertThat("flink run ended within 5 minutes:\n" + log, ended, is(true));
    assertThat(log, p.exitValue(), is(0));
    assertThat(log, containsString("pagemark backfill: published build"));
    assertThat("the job ran on the cluster", new FlinkRest(rest).overview().jobsFinished(), is(finishedBefore + 1));
    assertSameBuild(out);
  }

  @Test
  @Order(5)
  void anUnreachableClusterFailsWithWhatToDo() {
    BackfillIT.Result r =
        backfill("--output=" + dir.resolve("nowhere"), "--runner=FlinkRunner", "--flinkMaster=127.0.0.1:1");
    assertThat(r.code(), is(1));
    assertThat(r.err(), containsString("no Flink REST endpoint answers at 127.0.0.1:1"));
    assertThat(r.err(), containsString("pagemark flink-cluster start"));
  }

  /** The build under {@code root} has the reference build's counts, group files (build id and time aside), manifest. */
  private void assertSameBuild(Path root) throws IOException {
    assertThat(counts(root), equalTo(counts(direct)));
    Path a = direct.resolve("builds").resolve(new IndexLayout(direct).currentBuildId());
    Path b = root.resolve("builds").resolve(new IndexLayout(root).currentBuildId());
    List<Path> filesA = BackfillIT.groupFiles(a);
    assertThat(filesA.size(), is(TrickyTable.expectedCounts(items, "SK").size()));
    assertThat(filesA.stream().map(a::relativize).collect(Collectors.toList()),
        equalTo(BackfillIT.groupFiles(b).stream().map(b::relativize).collect(Collectors.toList())));
    for (Path f : filesA) {
      byte[] x = Files.readAllBytes(f);
      byte[] y = Files.readAllBytes(b.resolve(a.relativize(f)));
      assertThat(f.toString(), y.length, is(x.length));
      int headerLength = java.nio.ByteBuffer.wrap(x).getInt(12);
      BackfillIT.blankBuildFields(x, headerLength);
      BackfillIT.blankBuildFields(y, headerLength);
      assertThat("group file " + a.relativize(f) + " of " + root.getFileName() + " differs beyond build id and time",
          Arrays.equals(x, y), is(true));
    }
    assertThat(Files.readString(b.resolve(IndexLayout.MANIFEST)),
        equalTo(Files.readString(a.resolve(IndexLayout.MANIFEST))));
  }

  private static Path jar() {
    return Path.of(System.getProperty(FlinkTarget.JAR_PROPERTY, "target/pagemark-flink.jar")).toAbsolutePath();
  }

  private static BuildInfo.Counts counts(Path root) throws IOException {
    Path build = root.resolve("builds").resolve(new IndexLayout(root).currentBuildId());
    return BuildInfo.read(build.resolve(IndexLayout.BUILD_INFO)).counts();
  }

  private BackfillIT.Result backfill(String... args) {
    List<String> argv = new ArrayList<>(List.of("backfill", "--table=" + TABLE, "--gsi=" + TrickyTable.BY_STRING,
        "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=1"));
    argv.addAll(List.of(args));
    return BackfillIT.cli(argv.toArray(String[]::new));
  }

  /** Prints how long a step took (the numbers docs/flink.md quotes come from here); returns now. */
  private static long took(String what, long since) {
    long now = System.nanoTime();
    System.err.printf("FlinkBackfillIT: %s took %.1f s%n", what, (now - since) / 1e9);
    return now;
  }

  private static long newestFile(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      long newest = 0;
      for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
        newest = Math.max(newest, Files.getLastModifiedTime(p).toMillis());
      }
      return newest;
    }
  }
}
