package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.lookup.Index;
import io.pagemark.redis.RedisIndex;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The Redis half of the stream end to end (DynamoDB Local, kinesalite, the relay with 10% of the records duplicated,
 * a real redis-server): {@code pagemark stream --redis} runs as a process, started before a Redis backfill that scans
 * while 5,000+ random writes go on; it is killed (SIGKILL) at a random moment and restarted (resuming from its
 * position in Redis), and stopped with SIGTERM once past the last record. Every page of every group served through
 * Redis, both orders, must be DynamoDB's own page.
 */
class RedisStreamIT {
  static final int PAGE = 7;
  private final long started = System.nanoTime();

  @Test
  void redisStreamWithBackfillAndKillLosesAndDoublesNothingAndEveryPageIsDynamoDbsPage(@TempDir Path dir)
      throws Exception {
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    Random random = new Random(seed);
    DynamoDbLocal local = SharedDynamoDbLocal.get();
    Kinesalite kinesalite = SharedKinesalite.get();
    RedisServer redis = SharedRedis.get();
    String table = "redisEvents";
    String prefix = "it:" + table + ":";
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 1500, seed);
      try (Relay relay = Relay.start(local.connection(), table, kinesalite.connection(), table,
          new Relay.Options(0.1, 30, seed))) {
        writer.write(300);
        Process first = startStream(local, kinesalite, redis, table, prefix, dir.resolve("first.log"));
        StreamIT.awaitTrue(Duration.ofSeconds(120), () -> groups(redis, prefix) > 0 || !first.isAlive(),
            "the stream applied no change to Redis");
        assertThat(StreamIT.log(dir.resolve("first.log")), first.isAlive(), is(true));
        phase("first stream applying");

        CompletableFuture<BackfillIT.Result> backfill = CompletableFuture.supplyAsync(() -> BackfillIT.backfill(
            local, "--table=" + table, "--gsi=" + StreamTable.GSI, "--redis=" + redis.uri(),
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
            second = startStream(local, kinesalite, redis, table, prefix, dir.resolve("second.log"));
          }
        }
        writer.write(300);
        phase("writes done");
        assertThat(backfill.get().err(), backfill.get().code(), is(0));
        assertThat("writes while the backfill ran", duringBackfill, greaterThan(0));
        relay.awaitIdle(Duration.ofSeconds(120));
        assertThat(relay.duplicated(), greaterThan(300L));
        Instant lastArrival = StreamIT.lastArrival(kinesalite, table);
        Process restarted = second;
        try {
          StreamIT.awaitTrue(Duration.ofSeconds(480), () -> position(redis, prefix).isAfter(lastArrival)
              || !restarted.isAlive(), "the restarted stream did not get past the last record (" + lastArrival + ")");
        } catch (AssertionError e) {
          String log = StreamIT.log(dir.resolve("second.log"));
          throw new AssertionError(e.getMessage() + "; its log ends:\n" + log.substring(Math.max(0, log.length() - 4000)));
        }
        // the catch-up after the backfill runs within seconds of its finish
        StreamIT.awaitTrue(Duration.ofSeconds(30), () -> caughtUp(redis, prefix) || !restarted.isAlive(),
            "the stream did not catch up with the backfill's build");
        phase("stream caught up");
        assertThat(StreamIT.log(dir.resolve("second.log")), second.isAlive(), is(true));
        second.destroy(); // SIGTERM
        assertThat(second.waitFor(60, TimeUnit.SECONDS), is(true));
        String secondLog = StreamIT.log(dir.resolve("second.log"));
        assertThat(secondLog, second.exitValue(), is(0));
        assertThat(secondLog, containsString("pagemark stream: stopped after"));
        assertThat(secondLog, containsString(", 0 dead letters"));
        assertThat(secondLog, containsString("changes applied to Redis"));
        try (Jedis j = redis.client()) {
          assertThat(j.llen((prefix + "deadletters").getBytes(StandardCharsets.UTF_8)), is(0L));
        }
        String spec = redis.uri() + "?prefix=" + java.net.URLEncoder.encode(prefix, StandardCharsets.UTF_8);
        try (Index idx = RedisIndex.open(spec, null)) {
          StreamTable.assertEveryPageIsDynamoDbsPage(c, table, idx, PAGE);
        } catch (AssertionError e) {
          throw new AssertionError("seed " + seed + ": " + e.getMessage() + "\n" + secondLog, e);
        }
        phase("every page checked");
      }
    }
  }

  private void phase(String what) {
    System.err.printf("RedisStreamIT: %s after %.0f s%n", what, (System.nanoTime() - started) / 1e9);
  }

  /** Stream processes of this test, killed when it ends (also when it fails). */
  private final List<Process> processes = new ArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void killStreams() {
    processes.forEach(Process::destroyForcibly);
  }

  Process startStream(DynamoDbLocal local, Kinesalite kinesalite, RedisServer redis, String table,
      String prefix, Path log) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx768m");
    cmd.add("-Daws.cborEnabled=false");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of("stream", "--stream=" + table, "--kinesisEndpoint=" + kinesalite.endpoint(),
        "--redis=" + redis.uri(), "--redisKeyPrefix=" + prefix, "--table=" + table, "--gsi=" + StreamTable.GSI,
        "--dynamoEndpoint=" + local.endpoint(), "--flushMillis=500", "--watermarkIdleSeconds=2",
        "--progressSeconds=2"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    processes.add(p);
    return p;
  }

  static long groups(RedisServer redis, String prefix) {
    try (Jedis j = redis.client()) {
      return j.hlen((prefix + "groups").getBytes(StandardCharsets.UTF_8));
    }
  }

  static Instant position(RedisServer redis, String prefix) {
    try (Jedis j = redis.client()) {
      String p = j.hget(prefix + "stream", "position");
      return p == null ? Instant.EPOCH : Instant.ofEpochMilli(Long.parseLong(p));
    }
  }

  static boolean caughtUp(RedisServer redis, String prefix) {
    try (Jedis j = redis.client()) {
      String build = j.hget(prefix + "meta", "buildId");
      return build != null && build.equals(j.hget(prefix + "stream", "caughtUpBuild"));
    }
  }
}
