package io.pagemark.transforms.sink.redis;

import com.google.auto.value.AutoValue;
import io.pagemark.commit.redis.RedisChangeApplier;
import io.pagemark.transforms.sink.file.StreamToWal;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.order.DynamoTieOrder;
import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.source.ShardPositionStore;
import io.pagemark.wal.ShardPosition;
import io.pagemark.order.TieOrder;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.checkerframework.checker.nullness.qual.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What the Redis stream's steps share: the server, the key prefix, the schema, where runs of equal sort keys are
 * resolved (none: marked unknown) and the dedupe window; it also reads and advances the stream's shard positions.
 * Immutable and serializable; {@link #builder} makes one, {@link StreamToRedis} makes its own from its configuration.
 */
@AutoValue
public abstract class RedisStreamTarget implements Serializable {
  private static final long serialVersionUID = 1L;
  static final long MAX_RETRY_MILLIS = 60_000;

  /** The Redis server. */
  public abstract RedisAddress address();

  /** The prefix of the index's keys. */
  public abstract String keyPrefix();

  /** The index's key schema. */
  public abstract KeySchema schema();

  /** Where DynamoDB's order of equal sort keys is learned; null leaves such runs unresolved. */
  public abstract @Nullable DynamoConnection ties();

  /** How long the ledger remembers an item's version. */
  public abstract long dedupeMillis();

  /** A builder with a dedupe window of 24 hours and no tie resolution. */
  public static Builder builder() {
    return new AutoValue_RedisStreamTarget.Builder().setDedupeMillis(StreamToRedis.DEFAULT_DEDUPE_MILLIS);
  }

  /** Builds a {@link RedisStreamTarget}; address, key prefix and schema are required. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setAddress(RedisAddress address);

    public abstract Builder setKeyPrefix(String prefix);

    public abstract Builder setSchema(KeySchema schema);

    public abstract Builder setTies(@Nullable DynamoConnection connection);

    public abstract Builder setDedupeMillis(long millis);

    abstract RedisStreamTarget autoBuild();

    /**
     * The target.
     *
     * @throws IllegalStateException if the address, key prefix or schema is missing
     * @throws IllegalArgumentException if the key prefix is not one {@link RedisLayout} accepts, or the dedupe window
     *     is not positive
     */
    public RedisStreamTarget build() {
      RedisStreamTarget t = autoBuild();
      new RedisLayout(t.keyPrefix());
      if (t.dedupeMillis() < 1) {
        throw new IllegalArgumentException("the dedupe window must be positive, not " + t.dedupeMillis() + " ms");
      }
      return t;
    }
  }

  /** Hash fields of the shard positions: this prefix, then the shard id. */
  static final String SHARD_FIELD = "shard:";

  /**
   * KEYS: stream hash. ARGV: field, sequence number (decimal, no leading zeros), arrival (epoch ms). Moves the shard's
   * position ({@code "SEQ ARRIVAL"}) forward only, comparing sequence numbers as numbers; returns 1 when it moved.
   */
  static final byte[] ADVANCE_SHARD =
      ("local cur = redis.call('HGET', KEYS[1], ARGV[1])\n"
              + "if cur then\n"
              + "  local seq = string.match(cur, '^(%d+)')\n"
              + "  if #seq > #ARGV[2] or (#seq == #ARGV[2] and seq >= ARGV[2]) then return 0 end\n"
              + "end\n"
              + "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3])\n"
              + "return 1")
          .getBytes(StandardCharsets.UTF_8);

  /** The index's key layout. */
  public RedisLayout layout() {
    return new RedisLayout(keyPrefix());
  }

  /** A session that retries as Beam's FluentBackoff says, for up to a minute, counting retries as a metric. */
  RedisSession session(String clientName) {
    Counter retries = Metrics.counter(StreamToWal.METRICS, "redisRetries");
    return new RedisSession(address(), clientName, new FluentRedisBackoff(MAX_RETRY_MILLIS), retries::inc);
  }

  /** An applier with its own connections; the caller closes it (and the DynamoDB client, if any). */
  Applier applier(String clientName) {
    DynamoConnection ties = ties();
    DynamoDbClient client =
        ties == null ? null : ties.client(Metrics.counter(StreamToWal.METRICS, "throttledRetries")::inc);
    TieOrder order = client == null ? TieOrder.UNKNOWN
        : new DynamoTieOrder(client, schema(), Metrics.counter(StreamToWal.METRICS, "tieQueries")::inc);
    return new Applier(new RedisChangeApplier(session(clientName), layout(), schema(), order, dedupeMillis()),
        client);
  }

  /** An applier and the DynamoDB client its tie order uses. */
  public record Applier(RedisChangeApplier applier, DynamoDbClient dynamo) implements AutoCloseable {
    @Override
    public void close() {
      applier.close();
      if (dynamo != null) {
        dynamo.close();
      }
    }
  }

  /** An applier for use outside a pipeline (the catch-up after a backfill). */
  public Applier openApplier(String clientName) {
    return applier(clientName);
  }

  /** The stream's resume position per Kinesis shard id in Redis (empty before the stream applied a record). */
  public Map<String, ShardPosition> shardPositions() {
    byte[] key = layout().streamKey();
    Map<byte[], byte[]> all;
    try (RedisSession s = session("pagemark-stream")) {
      all = s.call("read the shard positions", key, j -> j.hgetAll(key));
    }
    Map<String, ShardPosition> positions = new TreeMap<>();
    for (Map.Entry<byte[], byte[]> e : all.entrySet()) {
      String field = new String(e.getKey(), StandardCharsets.UTF_8);
      if (!field.startsWith(SHARD_FIELD)) {
        continue;
      }
      String value = new String(e.getValue(), StandardCharsets.US_ASCII);
      String[] parts = value.split(" ");
      try {
        positions.put(field.substring(SHARD_FIELD.length()),
            new ShardPosition(parts[0], Instant.ofEpochMilli(Long.parseLong(parts[1]))));
      } catch (RuntimeException ex) {
        throw new IllegalStateException("field " + field + " of " + new String(key, StandardCharsets.UTF_8)
            + " is not \"SEQUENCE ARRIVAL_MILLIS\" but \"" + value + "\"; delete it (HDEL) to read that shard again"
            + " from the oldest record", ex);
      }
    }
    return positions;
  }

  /** Where the stream keeps its shard positions in this index. */
  ShardPositionStore positionStore() {
    return () -> {
      RedisSession s = session("pagemark-stream-position");
      return new ShardPositionStore.Writer() {
        @Override
        public boolean advance(String shardId, ShardPosition p) {
          return advanceShardPosition(s, shardId, p);
        }

        @Override
        public void close() {
          s.close();
        }
      };
    };
  }

  /** Moves a shard's position forward (never back); whether it moved. */
  boolean advanceShardPosition(RedisSession s, String shardId, ShardPosition p) {
    byte[] key = layout().streamKey();
    Object r = s.call("advance the shard position", key, j -> j.eval(ADVANCE_SHARD, List.of(key), List.of(
        (SHARD_FIELD + shardId).getBytes(StandardCharsets.UTF_8),
        p.sequenceNumber().getBytes(StandardCharsets.US_ASCII),
        Long.toString(p.arrival().toEpochMilli()).getBytes(StandardCharsets.US_ASCII))));
    return Long.valueOf(1).equals(r);
  }
}
