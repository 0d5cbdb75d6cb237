package io.pagemark.transforms.sink.redis;

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
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What the Redis stream's steps share: the server, the key prefix, the schema, where ties are resolved (null: marked
 * unknown) and the dedupe window. Serializable; also reads and advances the resume position.
 */
public record RedisStreamTarget(
    RedisAddress address, String keyPrefix, KeySchema schema, DynamoConnection ties, long dedupeMillis)
    implements Serializable {
  private static final long serialVersionUID = 1L;
  static final long MAX_RETRY_MILLIS = 60_000;
  static final byte[] POSITION = "position".getBytes(StandardCharsets.US_ASCII);

  /** KEYS: stream hash. ARGV: position (epoch ms). Moves the position forward only; returns 1 when it moved. */
  static final byte[] ADVANCE =
      ("local cur = redis.call('HGET', KEYS[1], 'position')\n"
              + "if cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end\n"
              + "redis.call('HSET', KEYS[1], 'position', ARGV[1])\n"
              + "return 1")
          .getBytes(StandardCharsets.UTF_8);

  public RedisLayout layout() {
    return new RedisLayout(keyPrefix);
  }

  RedisSession session(String clientName) {
    Counter retries = Metrics.counter(StreamToWal.METRICS, "redisRetries");
    return new RedisSession(address, clientName, MAX_RETRY_MILLIS, retries::inc);
  }

  /** An applier with its own connections; the caller closes it (and the DynamoDB client, if any). */
  Applier applier(String clientName) {
    DynamoDbClient client =
        ties == null ? null : ties.client(Metrics.counter(StreamToWal.METRICS, "throttledRetries")::inc);
    TieOrder order = client == null ? TieOrder.UNKNOWN
        : new DynamoTieOrder(client, schema, Metrics.counter(StreamToWal.METRICS, "tieQueries")::inc);
    return new Applier(new RedisChangeApplier(session(clientName), layout(), schema, order, dedupeMillis), client);
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
      byte[] v = s.call("read the resume position", j -> j.hget(layout().streamKey(), POSITION));
      return v == null ? Optional.empty()
          : Optional.of(Instant.ofEpochMilli(Long.parseLong(new String(v, StandardCharsets.US_ASCII))));
    }
  }

  /** Moves the resume position forward (never back); whether it moved. */
  boolean advancePosition(RedisSession s, long millis) {
    Object r = s.call("advance the resume position", j -> j.eval(ADVANCE, List.of(layout().streamKey()),
        List.of(Long.toString(millis).getBytes(StandardCharsets.US_ASCII))));
    return Long.valueOf(1).equals(r);
  }
}
