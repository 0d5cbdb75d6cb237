package io.pagemark.pipelines;

import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.RedisNodes;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.RedisServer;
import io.pagemark.wal.ShardPosition;
import io.pagemark.wal.Wal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import redis.clients.jedis.Jedis;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/** A test's view of the stream's shard positions: what Kinesis holds, and what the WAL and Redis have covered. */
final class ShardPositions {
  private ShardPositions() {}

  /** Each shard's last sequence number (shards without records are left out). */
  static Map<String, String> lastSequenceNumbers(Kinesalite kinesalite, String stream) {
    Map<String, String> last = new TreeMap<>();
    try (KinesisClient c = kinesalite.client()) {
      for (Shard s : c.listShards(b -> b.streamName(stream)).shards()) {
        String it = c.getShardIterator(b -> b.streamName(stream).shardId(s.shardId())
            .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
        while (it != null) {
          String from = it;
          GetRecordsResponse r = c.getRecords(b -> b.shardIterator(from).limit(10_000));
          r.records().forEach(rec -> last.put(s.shardId(), rec.sequenceNumber()));
          it = r.records().isEmpty() ? null : r.nextShardIterator();
        }
      }
    }
    return last;
  }

  /** The WAL's positions. */
  static Map<String, ShardPosition> inWal(Path index) {
    try {
      return new Wal(index).shardPositions();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The Redis index's positions (hash fields {@code shard:ID} = {@code "SEQ ARRIVAL_MILLIS"}). */
  static Map<String, ShardPosition> inRedis(RedisServer redis, String prefix) {
    try (Jedis j = redis.client()) {
      return fromStreamHash(j.hgetAll(new String(new RedisLayout(prefix).streamKey(), StandardCharsets.UTF_8)));
    }
  }

  /** The same, from a Redis Cluster: the stream hash lives on the master of its slot. */
  static Map<String, ShardPosition> inRedis(RedisNodes nodes, String prefix) {
    String key = new String(new RedisLayout(prefix).streamKey(), StandardCharsets.UTF_8);
    return fromStreamHash(nodes.onKey(key.getBytes(StandardCharsets.UTF_8), j -> j.hgetAll(key)));
  }

  private static Map<String, ShardPosition> fromStreamHash(Map<String, String> hash) {
    Map<String, ShardPosition> positions = new TreeMap<>();
    hash.forEach((k, v) -> {
      if (k.startsWith("shard:")) {
        String[] parts = v.split(" ");
        positions.put(k.substring(6), new ShardPosition(parts[0], Instant.ofEpochMilli(Long.parseLong(parts[1]))));
      }
    });
    return positions;
  }

  /** How many of the shards' last records {@code positions} cover (all of them: {@code last.size()}). */
  static int covered(Map<String, ShardPosition> positions, Map<String, String> last) {
    int n = 0;
    for (Map.Entry<String, String> e : last.entrySet()) {
      ShardPosition p = positions.get(e.getKey());
      n += p != null && p.covers(e.getValue()) ? 1 : 0;
    }
    return n;
  }
}
