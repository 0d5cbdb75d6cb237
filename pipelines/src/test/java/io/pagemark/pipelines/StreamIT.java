package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.format.BuildInfo;
import io.pagemark.lookup.FileIndex;
import io.pagemark.stream.IndexCommit;
import io.pagemark.stream.Wal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.model.Record;

/**
 * The stream end to end against DynamoDB Local and kinesalite, and its failures: 5,000+ random writes relayed from
 * DynamoDB Local's stream into Kinesis with 10% of the records duplicated; {@code pagemark stream} runs as a process
 * of its own, started before a backfill that scans while the writes go on, is killed (SIGKILL) at a random moment,
 * restarted (it resumes from the WAL's resume position) and stopped with SIGTERM; a commit is crashed at a random step
 * and run again. Every page of every group, in both orders, must be DynamoDB's own page.
 */
class StreamIT {
  static final int PAGE = 7;

  @Test
  void streamBackfillKillsAndCrashesLoseAndDoubleNothingAndEveryPageIsDynamoDbsPage(@TempDir Path dir)
      throws Exception {
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    Random random = new Random(seed);
    DynamoDbLocal local = SharedDynamoDbLocal.get();
    Kinesalite kinesalite = SharedKinesalite.get();
    String table = "events";
    Path index = dir.resolve("index");
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 1500, seed);
      try (Relay relay = Relay.start(local.connection(), table, kinesalite.connection(), table,
          new Relay.Options(0.1, 30, seed))) {
        phase("relay started");
        writer.write(300);
        Process first = startStream(local, kinesalite, table, index, dir.resolve("first.log"));
        awaitTrue(Duration.ofSeconds(120), () -> segments(index) > 0 || !first.isAlive(),
            "the stream wrote no WAL segment");
        assertThat(log(dir.resolve("first.log")), first.isAlive(), is(true));
        phase("first stream appending");

        // 5,000 writes or more; a backfill scans the table while they go on; the stream is killed meanwhile
        CompletableFuture<BackfillIT.Result> backfill = CompletableFuture.supplyAsync(() -> BackfillIT.backfill(
            local, "--table=" + table, "--gsi=" + StreamTable.GSI, "--output=" + index, "--segments=2"));
        int killAt = writer.written() + 200 + random.nextInt(1500);
        Process second = null;
        int duringBackfill = 0;
        while (!backfill.isDone() || writer.written() < 5000 || second == null) {
          writer.write(50);
          duringBackfill += backfill.isDone() ? 0 : 50;
          if (second == null && writer.written() >= killAt) {
            first.destroyForcibly();
            assertThat(first.waitFor(30, TimeUnit.SECONDS), is(true));
            assertThat(first.exitValue(), not(is(0)));
            second = startStream(local, kinesalite, table, index, dir.resolve("second.log"));
          }
        }
        writer.write(300);
        phase("writes done");
        assertThat(backfill.get().err(), backfill.get().code(), is(0));
        assertThat("writes while the backfill ran", duringBackfill, greaterThan(0));
        Map<StreamTable.Kind, Integer> kinds = writer.kinds();
        assertThat(kinds.get(StreamTable.Kind.MOVE_GROUP), greaterThan(300));
        assertThat(kinds.get(StreamTable.Kind.MOVE_SORT), greaterThan(300));

        relay.awaitIdle(Duration.ofSeconds(120));
        phase("relay idle");
        assertThat(relay.duplicated(), greaterThan(300L));
        Instant lastArrival = lastArrival(kinesalite, table);
        Wal wal = new Wal(index);
        Process restarted = second;
        awaitTrue(Duration.ofSeconds(180), () -> {
          try {
            return wal.position().map(p -> p.isAfter(lastArrival)).orElse(false) || !restarted.isAlive();
          } catch (IOException e) {
            return false;
          }
        }, "the restarted stream did not get past the last record (" + lastArrival + ")");
        phase("stream caught up");
        assertThat(log(dir.resolve("second.log")), second.isAlive(), is(true));
        second.destroy(); // SIGTERM
        assertThat(second.waitFor(60, TimeUnit.SECONDS), is(true));
        String secondLog = log(dir.resolve("second.log"));
        assertThat(secondLog, second.exitValue(), is(0));
        assertThat(secondLog, containsString("pagemark stream: stopped after"));
        assertThat(secondLog, containsString(", 0 dead letters"));

        phase("stream stopped");
        // without DynamoDB (on a copy), changed runs of equal sort keys are unknown and pages still right
        Path copy = dir.resolve("copy");
        copyTree(index, copy);
        BackfillIT.Result plain = BackfillIT.cli("commit", "--index=" + copy);
        assertThat(plain.err(), plain.code(), is(0));
        try (FileIndex idx = FileIndex.open(copy)) {
          assertThat(idx.info().counts().tieRunsUnresolved(), greaterThan(0L));
        }
        StreamTable.assertEveryPageIsDynamoDbsPage(c, table, copy, PAGE);

        phase("commit without DynamoDB checked");
        AtomicInteger steps = new AtomicInteger();
        int crashAt = 1 + random.nextInt(25);
        AtomicReference<String> crashedAt = new AtomicReference<>("nowhere (the commit finished)");
        try {
          IndexCommit.of(index).withSteps(step -> {
            if (steps.incrementAndGet() == crashAt) {
              crashedAt.set(step);
              throw new IllegalStateException("simulated crash at " + step);
            }
          }).run();
        } catch (IllegalStateException e) {
          assertThat(e.getMessage(), containsString("simulated crash"));
        }
        BackfillIT.Result commit = BackfillIT.cli("commit", "--index=" + index, "--dynamoEndpoint=" + local.endpoint());
        assertThat(commit.err(), commit.code(), is(0));
        assertThat(segments(index), is(0L));
        if (!crashedAt.get().matches("locked|recovered|started|group|linked|written")) {
          // the crashed commit had published: its build stands, the next one had nothing left to apply
          assertThat(commit.out(), containsString("nothing to commit"));
        }
        try (FileIndex idx = FileIndex.open(index)) {
          BuildInfo.Commit info = idx.info().commit();
          assertThat(info.applied(), greaterThan(1000L));
          assertThat("duplicates", info.stale(), greaterThan(relay.duplicated() / 2));
          assertThat(idx.info().counts().tieRuns(), greaterThan(10L));
        }
        phase("committed");
        try {
          StreamTable.assertEveryPageIsDynamoDbsPage(c, table, index, PAGE);
        } catch (AssertionError e) {
          throw new AssertionError("seed " + seed + ", commit crashed at " + crashedAt.get() + ": " + e.getMessage(),
              e);
        }
        phase("every page checked");
      }
    }
  }

  private final long started = System.nanoTime();

  /** A progress line on stderr, so that a slow run shows where its time went. */
  private void phase(String what) {
    System.err.printf("StreamIT: %s after %.0f s%n", what, (System.nanoTime() - started) / 1e9);
  }

  /**
   * {@code pagemark stream} in a JVM of its own, output to {@code log}, with the JVM flags {@code bin/pagemark} gives
   * it (Flink's Java 17 opens, the job jar) and {@code extra} options (a runner, for instance).
   */
  static Process startStream(DynamoDbLocal local, Kinesalite kinesalite, String table, Path index, Path log,
      String... extra) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx768m");
    cmd.add("-Daws.cborEnabled=false");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.addAll(List.of("--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED"));
    if (System.getProperty(FlinkTarget.JAR_PROPERTY) != null) {
      cmd.add("-D" + FlinkTarget.JAR_PROPERTY + "=" + System.getProperty(FlinkTarget.JAR_PROPERTY));
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of("stream", "--stream=" + table, "--kinesisEndpoint=" + kinesalite.endpoint(),
        "--output=" + index, "--table=" + table, "--gsi=" + StreamTable.GSI,
        "--dynamoEndpoint=" + local.endpoint(), "--flushMillis=500", "--watermarkIdleSeconds=2",
        "--progressSeconds=2"));
    cmd.addAll(List.of(extra));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** Finished WAL segments under the index. */
  static long segments(Path index) {
    Path groups = index.resolve(Wal.DIR).resolve("groups");
    if (!Files.isDirectory(groups)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(groups)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".wal")).count();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0; // a segment was renamed or deleted while walking
    }
  }

  static Instant lastArrival(Kinesalite k, String stream) {
    Instant last = Instant.EPOCH;
    for (Record r : RelayIT.readAll(k, stream)) {
      if (r.approximateArrivalTimestamp().isAfter(last)) {
        last = r.approximateArrivalTimestamp();
      }
    }
    assertThat(last, greaterThan(Instant.EPOCH));
    return last;
  }

  static String log(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file) : "(no log at " + file + ")";
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }

  static void awaitTrue(Duration timeout, BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " within " + timeout.toSeconds() + " s");
      }
      Thread.sleep(100); // polling a condition with a deadline
    }
  }
}
