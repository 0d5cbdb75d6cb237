package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.RedisNodes;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.KinesaliteExtension;
import io.pagemark.testing.RedisCluster;
import io.pagemark.testing.RedisClusterExtension;
import io.pagemark.transforms.source.KinesisConnection;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark stream --redis=redis-cluster://...} end to end (it lives beside {@link StreamIT}, whose launcher
 * it shares): random writes relayed from DynamoDB Local into Kinesis with duplicates, the stream applying them to a
 * Redis index on a real 3-master cluster while a backfill loads that index into the cluster; after the stream caught
 * up and stopped (SIGTERM), every page of every group, both orders, read through {@code redis-cluster://}, is
 * DynamoDB's own page.
 */
@ExtendWith({DynamoDbLocalExtension.class, KinesaliteExtension.class, RedisClusterExtension.class})
class ClusterStreamIT {
  static final int PAGE = 7;
  private Process stream;

  @AfterEach
  void kill() {
    if (stream != null) {
      stream.destroyForcibly();
    }
  }

  @Test
  void aStreamIntoTheClusterDuringABackfillLeavesEveryPageDynamoDbsPage(@TempDir Path dir, DynamoDbLocal local,
      Kinesalite kinesalite, RedisCluster cluster) throws Exception {
    long seed = 23;
    String table = "clusterEvents";
    String prefix = "it:" + table + ":";
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client();
        RedisNodes nodes = RedisAddress.parse(cluster.uri()).nodes("test")) {
      StreamTable.create(c, table);
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 600, seed);
      try (Relay relay = Relay.start(local.connection(), table,
          new KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table, new Relay.Options(0.1, 30, seed))) {
        writer.write(200);
        stream = StreamIT.startStream(local, kinesalite, table, dir.resolve("index"), dir.resolve("stream.log"),
            "--redis=" + cluster.uri(), "--redisKeyPrefix=" + prefix, "--resolveTies=false");
        CompletableFuture<BackfillIT.Result> backfill = CompletableFuture.supplyAsync(() -> BackfillIT.backfill(
            local, "--table=" + table, "--gsi=" + StreamTable.GSI, "--redis=" + cluster.uri(),
            "--redisKeyPrefix=" + prefix, "--segments=2"));
        while (!backfill.isDone() || writer.written() < 1500) {
          writer.write(50);
        }
        writer.write(100);
        assertThat(backfill.get().err(), backfill.get().code(), is(0));
        relay.awaitIdle(Duration.ofSeconds(120));
        Map<String, String> last = ShardPositions.lastSequenceNumbers(kinesalite, table);
        RedisLayout layout = new RedisLayout(prefix);
        Process s = stream;
        StreamIT.awaitProgress(Duration.ofSeconds(90), Duration.ofSeconds(300), () -> ShardPositions.inRedis(nodes,
            prefix), p -> ShardPositions.covered(p, last) == last.size() || !s.isAlive(),
            "the stream's shard positions did not reach every shard's last record " + last);
        StreamIT.awaitTrue(Duration.ofSeconds(60), () -> caughtUp(nodes, layout) || !s.isAlive(),
            "the stream did not catch up with the backfill's build");
        String log = StreamIT.log(dir.resolve("stream.log"));
        assertThat(log, stream.isAlive(), is(true));
        stream.destroy(); // SIGTERM
        assertThat(stream.waitFor(60, TimeUnit.SECONDS), is(true));
        log = StreamIT.log(dir.resolve("stream.log"));
        assertThat(log, stream.exitValue(), is(0));
        assertThat(log, containsString(", 0 dead letters"));
        assertThat(log, containsString("changes applied to Redis"));
        String spec = cluster.uri() + "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);
        try (Index idx = Indexes.open(spec)) {
          StreamTable.assertEveryPageIsDynamoDbsPage(c, table, idx, PAGE);
        }
      }
    }
  }

  private static boolean caughtUp(RedisNodes nodes, RedisLayout layout) {
    byte[] meta = layout.metaKey();
    byte[] streamKey = layout.streamKey();
    byte[] build = nodes.onKey(meta, j -> j.hget(meta, "buildId".getBytes(StandardCharsets.UTF_8)));
    byte[] done = nodes.onKey(streamKey, j -> j.hget(streamKey, "caughtUpBuild".getBytes(StandardCharsets.UTF_8)));
    return build != null && Arrays.equals(build, done);
  }
}
