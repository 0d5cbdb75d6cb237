package io.pagemark.pipelines;

import io.pagemark.format.redis.RedisLayout;

import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.KinesaliteExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.commit.IndexCommit;
import io.pagemark.wal.ShardPosition;
import io.pagemark.wal.Wal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The stream end to end against DynamoDB Local, kinesalite and redis-server, and its failures: 5,000+ random writes
 * relayed from DynamoDB Local's stream into Kinesis with 10% of the records duplicated; {@code pagemark stream} runs
 * as a process of its own, into a file index's WAL and a Redis index at once, started before a backfill (both sinks)
 * that scans while the writes go on, is killed (SIGKILL) at a random moment, restarted (it resumes from the earlier
 * of its resume positions) and stopped with SIGTERM; every page via Redis is checked; a commit is crashed at a random
 * step and run again. Every page of every group, in both orders, must be DynamoDB's own page.
 */
@ExtendWith({DynamoDbLocalExtension.class, KinesaliteExtension.class, RedisExtension.class})
class StreamIT {
  static final int PAGE = 7;

  @Test
  void streamBackfillKillsAndCrashesLoseAndDoubleNothingAndEveryPageIsDynamoDbsPage(@TempDir Path dir,
      DynamoDbLocal local, Kinesalite kinesalite, RedisServer redis) throws Exception {
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    Random random = new Random(seed);
    String table = "events";
    Path index = dir.resolve("index");
    String prefix = "it:" + table + ":";
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 1500, seed);
      try (Relay relay = Relay.start(local.connection(), table, new io.pagemark.transforms.source.KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table,
          new Relay.Options(0.1, 30, seed))) {
        phase("relay started");
        writer.write(300);
        Process first = startStream(local, kinesalite, redis, table, index, prefix, dir.resolve("first.log"));
        awaitTrue(Duration.ofSeconds(120), () -> (segments(index) > 0 && groups(redis, prefix) > 0)
            || !first.isAlive(), "the stream wrote no WAL segment or applied no change to Redis");
        assertThat(log(dir.resolve("first.log")), first.isAlive(), is(true));
        phase("first stream appending");

        // 5,000 writes or more; a backfill scans the table while they go on; the stream is killed meanwhile
        CompletableFuture<BackfillIT.Result> backfill = CompletableFuture.supplyAsync(() -> BackfillIT.backfill(
            local, "--table=" + table, "--gsi=" + StreamTable.GSI, "--output=" + index, "--redis=" + redis.uri(),
            "--redisKeyPrefix=" + prefix, "--segments=2"));
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
            second = startStream(local, kinesalite, redis, table, index, prefix, dir.resolve("second.log"));
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
        Map<String, String> last = ShardPositions.lastSequenceNumbers(kinesalite, table);
        Process restarted = second;
        try {
          // a loaded machine makes the stream slow, not wrong: wait while its shard positions keep moving
          awaitPositions(index, redis, prefix, last, restarted);
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; the stream's log ends:\n"
              + tail(log(dir.resolve("second.log")), 40), e);
        }
        // the Redis index catches up with the backfill's build within seconds of its finish
        awaitTrue(Duration.ofSeconds(60), () -> caughtUp(redis, prefix) || !restarted.isAlive(),
            "the stream did not catch up with the Redis backfill's build");
        phase("stream caught up");
        assertThat(log(dir.resolve("second.log")), second.isAlive(), is(true));
        second.destroy(); // SIGTERM
        assertThat(second.waitFor(60, TimeUnit.SECONDS), is(true));
        String secondLog = log(dir.resolve("second.log"));
        assertThat(secondLog, second.exitValue(), is(0));
        assertThat(secondLog, containsString("pagemark stream: stopped after"));
        assertThat(secondLog, containsString(", 0 dead letters"));
        assertThat(secondLog, containsString("changes applied to Redis"));
        try (Jedis j = redis.client()) {
          assertThat(j.llen(new RedisLayout(prefix).deadLettersKey()), is(0L));
        }
        String spec = redis.uri() + "?prefix=" + java.net.URLEncoder.encode(prefix, StandardCharsets.UTF_8);
        try (Index idx = Indexes.open(spec)) {
          StreamTable.assertEveryPageIsDynamoDbsPage(c, table, idx, PAGE);
        } catch (AssertionError e) {
          throw new AssertionError("seed " + seed + ", via Redis: " + e.getMessage(), e);
        }
        phase("every page via Redis checked");

        phase("stream stopped");
        // without DynamoDB (on a copy), changed runs of equal sort keys are unknown and pages still right
        Path copy = dir.resolve("copy");
        copyTree(index, copy);
        BackfillIT.Result plain = BackfillIT.cli("commit", "--index=" + copy);
        assertThat(plain.err(), plain.code(), is(0));
        try (Index idx = Indexes.open(copy.toString())) {
          assertThat(new IndexLayout(copy).buildInfo(idx.buildId()).counts().tieRunsUnresolved(), greaterThan(0L));
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
        try (Index idx = Indexes.open(index.toString())) {
          BuildInfo built = new IndexLayout(index).buildInfo(idx.buildId());
          BuildInfo.Commit info = built.commit();
          assertThat(info.applied(), greaterThan(1000L));
          assertThat("duplicates", info.stale(), greaterThan(relay.duplicated() / 2));
          assertThat(built.counts().tieRuns(), greaterThan(10L));
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

  /** Stream processes of this test, killed when it ends (also when it fails). */
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void killStreams() {
    processes.forEach(Process::destroyForcibly);
  }

  /**
   * {@code pagemark stream} into the file index's WAL and the Redis index at once. Runs of equal sort keys the stream
   * touches in Redis are marked unknown ({@code --resolveTies=false}: two Queries per touched run per batch would slow
   * the catch-up; the resolved path is unit-tested).
   */
  Process startStream(DynamoDbLocal local, Kinesalite kinesalite, RedisServer redis, String table, Path index,
      String prefix, Path log) throws IOException {
    Process p = startStream(local, kinesalite, table, index, log, "--redis=" + redis.uri(),
        "--redisKeyPrefix=" + prefix, "--resolveTies=false");
    processes.add(p);
    return p;
  }

  /**
   * {@code pagemark stream} in a JVM of its own into the file index at {@code index}, output to {@code log}, with the
   * JVM flags {@code bin/pagemark} gives it (Flink's Java 17 opens, the job jar) and {@code extra} options (a runner,
   * a Redis index, another {@code --watermarkIdleSeconds} than the default here, 20 s).
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
        "--dynamoEndpoint=" + local.endpoint(), "--flushMillis=500", "--progressSeconds=2"));
    if (java.util.Arrays.stream(extra).noneMatch(e -> e.startsWith("--watermarkIdleSeconds="))) {
      cmd.add("--watermarkIdleSeconds=20");
    }
    cmd.addAll(List.of(extra));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** Groups the Redis index holds. */
  static long groups(RedisServer redis, String prefix) {
    try (Jedis j = redis.client()) {
      return j.keys(new RedisLayout(prefix).stampKeyPattern()).size();
    }
  }

  /**
   * Waits until the WAL's and (with {@code redis}) the Redis index's shard positions cover every shard's last record
   * ({@code last}), failing when they stop moving for 90 s or the stream process ends.
   */
  static void awaitPositions(Path index, RedisServer redis, String prefix, Map<String, String> last, Process stream)
      throws InterruptedException {
    awaitProgress(Duration.ofSeconds(90), Duration.ofSeconds(600),
        () -> List.<Map<String, ShardPosition>>of(ShardPositions.inWal(index),
            redis == null ? Map.of() : ShardPositions.inRedis(redis, prefix)),
        p -> !stream.isAlive() || (ShardPositions.covered(p.get(0), last) == last.size()
            && (redis == null || ShardPositions.covered(p.get(1), last) == last.size())),
        "the stream's shard positions did not reach every shard's last record " + last);
    assertThat("the stream process ended", stream.isAlive(), is(true));
  }

  /** Whether the stream re-applied its recent changes over the last finished backfill build. */
  static boolean caughtUp(RedisServer redis, String prefix) {
    RedisLayout layout = new RedisLayout(prefix);
    try (Jedis j = redis.client()) {
      byte[] build = j.hget(layout.metaKey(), "buildId".getBytes(StandardCharsets.UTF_8));
      return build != null
          && java.util.Arrays.equals(build, j.hget(layout.streamKey(), "caughtUpBuild".getBytes(StandardCharsets.UTF_8)));
    }
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
    return k.lastArrival(stream);
  }

  static String tail(String log, int lines) {
    String[] all = log.split("\n");
    return String.join("\n", java.util.Arrays.copyOfRange(all, Math.max(0, all.length - lines), all.length));
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

  /**
   * Polls {@code value} until {@code done} holds; fails when it has not changed for {@code stall}, or after
   * {@code limit} in all.
   */
  static <T> void awaitProgress(Duration stall, Duration limit, java.util.function.Supplier<T> value,
      java.util.function.Predicate<T> done, String what) throws InterruptedException {
    long start = System.nanoTime();
    long lastChange = start;
    T last = value.get();
    while (!done.test(last)) {
      long now = System.nanoTime();
      if (now - lastChange > stall.toNanos()) {
        throw new AssertionError(what + ": no progress for " + stall.toSeconds() + " s (at " + last + ")");
      }
      if (now - start > limit.toNanos()) {
        throw new AssertionError(what + " within " + limit.toSeconds() + " s (at " + last + ")");
      }
      Thread.sleep(200); // polling a condition with a deadline
      T next = value.get();
      if (!next.equals(last)) {
        lastChange = System.nanoTime();
        last = next;
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
