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
import io.pagemark.order.TieOrder;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.checkerframework.checker.nullness.qual.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What the Redis stream's steps share: the server, the key prefix, the schema, where runs of equal sort keys are
 * resolved (none: marked unknown) and the dedupe window; it also reads and advances the stream's resume position.
 * Immutable and serializable; {@link #builder} makes one, {@link StreamToRedis} makes its own from its configuration.
 */
@AutoValue
public abstract class RedisStreamTarget implements Serializable {
  private static final long serialVersionUID = 1L;
  static final long MAX_RETRY_MILLIS = 60_000;
  static final byte[] POSITION = "position".getBytes(StandardCharsets.US_ASCII);

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

  /** KEYS: stream hash. ARGV: position (epoch ms). Moves the position forward only; returns 1 when it moved. */
  static final byte[] ADVANCE =
      ("local cur = redis.call('HGET', KEYS[1], 'position')\n"
              + "if cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end\n"
              + "redis.call('HSET', KEYS[1], 'position', ARGV[1])\n"
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

  /** The stream's resume position in Redis, if it has one. */
  public Optional<Instant> position() {
    try (RedisSession s = session("pagemark-stream")) {
      byte[] v = s.call("read the resume position", layout().streamKey(), j -> j.hget(layout().streamKey(), POSITION));
      return v == null ? Optional.empty()
          : Optional.of(Instant.ofEpochMilli(Long.parseLong(new String(v, StandardCharsets.US_ASCII))));
    }
  }

  /** Moves the resume position forward (never back); whether it moved. */
  boolean advancePosition(RedisSession s, long millis) {
    Object r = s.call("advance the resume position", layout().streamKey(), j -> j.eval(ADVANCE, List.of(layout().streamKey()),
        List.of(Long.toString(millis).getBytes(StandardCharsets.US_ASCII))));
    return Long.valueOf(1).equals(r);
  }
}
