package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.KinesaliteExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;
import io.pagemark.transforms.source.KinesisConnection;
import io.pagemark.wal.ShardPosition;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * The stream's per-shard resume positions under the faults that made the old time position skip records (DynamoDB
 * Local, kinesalite, the relay, redis-server, {@code pagemark stream} in a process of its own into the WAL and Redis at
 * once, {@code --watermarkIdleSeconds=2}): the stream is paused (SIGSTOP) for three times the idle setting while
 * writes go on, let run again until its positions move, then killed (SIGKILL) and restarted; then a shard is split
 * while writes go on. Every page of every group, through Redis and through the files after a commit, in both orders,
 * must be DynamoDB's own page, and the positions must reach the last record of every shard, the split's children too.
 */
@ExtendWith({DynamoDbLocalExtension.class, KinesaliteExtension.class, RedisExtension.class})
class ShardPositionIT {
  static final int IDLE_SECONDS = 2;

  @TempDir Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final long started = System.nanoTime();

  @AfterEach
  void killStreams() {
    processes.forEach(Process::destroyForcibly);
  }

  @Test
  void aPauseLongerThanTheIdleSettingAKillAndASplitLoseNothing(DynamoDbLocal local, Kinesalite kinesalite,
      RedisServer redis) throws Exception {
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    String table = "positions";
    String prefix = "pos:" + table + ":";
    Path index = dir.resolve("index");
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
      BackfillIT.Result empty = BackfillIT.backfill(local, "--table=" + table, "--gsi=" + StreamTable.GSI,
          "--output=" + index, "--redis=" + redis.uri(), "--redisKeyPrefix=" + prefix, "--segments=1");
      assertThat(empty.err(), empty.code(), is(0));
      phase("empty indexes built");
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 150, seed);
      try (Relay relay = Relay.start(local.connection(), table,
          new KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table, new Relay.Options(0.1, 30, seed))) {
        writer.write(100);
        Process first = start(local, kinesalite, redis, table, index, prefix, "first.log");
        StreamIT.awaitTrue(Duration.ofSeconds(90), () -> !ShardPositions.inWal(index).isEmpty() || !first.isAlive(),
            "the stream moved no shard position");
        assertThat(StreamIT.log(dir.resolve("first.log")), first.isAlive(), is(true));
        phase("first stream applying");

        // paused three times the idle setting while writes reach Kinesis: Beam's watermark follows the clock
        signal(first, "STOP");
        Map<String, ShardPosition> atPause = ShardPositions.inWal(index);
        long pauseEnds = System.nanoTime() + TimeUnit.SECONDS.toNanos(3L * IDLE_SECONDS);
        while (System.nanoTime() < pauseEnds) {
          writer.write(5);
          Thread.sleep(100); // pacing the writes over the pause, not waiting for anything
        }
        relay.awaitIdle(Duration.ofSeconds(60));
        signal(first, "CONT");
        // the moment the old time position jumped past records still unread: let the positions move, then kill
        StreamIT.awaitTrue(Duration.ofSeconds(60),
            () -> !ShardPositions.inWal(index).equals(atPause) || !first.isAlive(),
            "the resumed stream moved no shard position");
        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS), is(true));
        assertThat(first.exitValue(), not(is(0)));
        phase("first stream paused, resumed and killed after " + writer.written() + " writes");

        writer.write(50);
        Process second = start(local, kinesalite, redis, table, index, prefix, "second.log");
        writer.write(50);
        String parent = split(kinesalite, table);
        phase("split " + parent);
        writer.write(150);
        relay.awaitIdle(Duration.ofSeconds(60));
        Map<String, String> last = ShardPositions.lastSequenceNumbers(kinesalite, table);
        // the split shard, its sibling, and both children (records of one item go to one child, in order)
        assertThat("shards holding records " + last, last.size(), is(4));
        try {
          StreamIT.awaitPositions(index, redis, prefix, last, second);
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; WAL " + ShardPositions.inWal(index) + ", Redis "
              + ShardPositions.inRedis(redis, prefix) + "; the stream's log ends:\n"
              + StreamIT.tail(StreamIT.log(dir.resolve("second.log")), 40), e);
        }
        assertThat(ShardPositions.inWal(index).keySet(), hasItems(last.keySet().toArray(String[]::new)));
        phase("positions at every shard's last record");

        second.destroy(); // SIGTERM
        assertThat(second.waitFor(60, TimeUnit.SECONDS), is(true));
        String log = StreamIT.log(dir.resolve("second.log"));
        assertThat(log, second.exitValue(), is(0));
        assertThat(log, containsString("resuming 2 shard positions"));
        assertThat(log, containsString(", 0 dead letters"));

        String spec = redis.uri() + "?prefix=" + java.net.URLEncoder.encode(prefix, StandardCharsets.UTF_8);
        try (Index idx = Indexes.open(spec)) {
          StreamTable.assertEveryPageIsDynamoDbsPage(c, table, idx, StreamIT.PAGE);
        }
        phase("every page via Redis checked");
        BackfillIT.Result commit = BackfillIT.cli("commit", "--index=" + index, "--dynamoEndpoint=" + local.endpoint());
        assertThat(commit.err(), commit.code(), is(0));
        StreamTable.assertEveryPageIsDynamoDbsPage(c, table, index, StreamIT.PAGE);
        assertThat(writer.written(), greaterThan(400));
        phase("every page of the files checked after " + writer.written() + " writes");
      }
    } catch (AssertionError e) {
      throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
    }
  }

  private Process start(DynamoDbLocal local, Kinesalite kinesalite, RedisServer redis, String table, Path index,
      String prefix, String log) throws IOException {
    Process p = StreamIT.startStream(local, kinesalite, table, index, dir.resolve(log), "--redis=" + redis.uri(),
        "--redisKeyPrefix=" + prefix, "--resolveTies=false", "--watermarkIdleSeconds=" + IDLE_SECONDS);
    processes.add(p);
    return p;
  }

  /** Sends {@code kill -SIG} to the process and waits for kill to finish. */
  private static void signal(Process p, String sig) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start();
    assertThat("kill -" + sig, kill.waitFor(), is(0));
  }

  /** Splits the stream's first open shard at the middle of its hash key range; returns the parent's id. */
  private static String split(Kinesalite kinesalite, String stream) throws InterruptedException {
    try (KinesisClient k = kinesalite.client()) {
      Shard s = k.listShards(b -> b.streamName(stream)).shards().stream()
          .filter(x -> x.sequenceNumberRange().endingSequenceNumber() == null).findFirst().orElseThrow();
      BigInteger lo = new BigInteger(s.hashKeyRange().startingHashKey());
      BigInteger hi = new BigInteger(s.hashKeyRange().endingHashKey());
      k.splitShard(b -> b.streamName(stream).shardToSplit(s.shardId())
          .newStartingHashKey(lo.add(hi).shiftRight(1).toString()));
      StreamIT.awaitTrue(Duration.ofSeconds(30), () -> k.describeStreamSummary(b -> b.streamName(stream))
          .streamDescriptionSummary().streamStatusAsString().equals("ACTIVE"), "the stream is ACTIVE after the split");
      return s.shardId();
    }
  }

  private void phase(String what) {
    System.err.printf("ShardPositionIT: %s after %.0f s%n", what, (System.nanoTime() - started) / 1e9);
  }
}
