package io.pagemark.transforms.sink.redis;

import com.google.auto.value.AutoValue;
import io.pagemark.commit.redis.RedisFailure;
import io.pagemark.commit.redis.RedisSession;

import io.pagemark.key.Json;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import redis.clients.jedis.Jedis;

/**
 * Everything the Redis sink's steps share: where to write, the key layout, the index's schema, the build, and the
 * tuning. Immutable and serializable (it travels to the workers inside the DoFns); made by
 * {@link WriteRedisSortedSets} from its configuration.
 */
@AutoValue
abstract class RedisTarget implements Serializable {
  private static final long serialVersionUID = 1L;

  abstract RedisAddress address();

  abstract String keyPrefix();

  abstract RedisIndexMeta schema();

  abstract String buildId();

  abstract long buildTimeMillis();

  abstract int batchSize();

  abstract long temporaryTtlMillis();

  abstract long maxRetryMillis();

  static Builder builder() {
    return new AutoValue_RedisTarget.Builder();
  }

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setAddress(RedisAddress address);

    abstract Builder setKeyPrefix(String prefix);

    abstract Builder setSchema(RedisIndexMeta schema);

    abstract Builder setBuildId(String id);

    abstract Builder setBuildTimeMillis(long millis);

    abstract Builder setBatchSize(int n);

    abstract Builder setTemporaryTtlMillis(long millis);

    abstract Builder setMaxRetryMillis(long millis);

    abstract RedisTarget build();
  }

  /** Creates the meta hash with this schema unless it exists; returns the hash as it is now. */
  private static final String RECORD_SCHEMA =
      "if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end\n"
          + "return redis.call('HGETALL', KEYS[1])";

  RedisLayout layout() {
    return new RedisLayout(keyPrefix());
  }

  /** A session that retries as Beam's FluentBackoff says, within the retry time, counting retries in {@code retries}. */
  RedisSession session(String clientName, Counter retries) {
    return new RedisSession(address(), clientName, new FluentRedisBackoff(maxRetryMillis()), retries::inc);
  }

  /**
   * Checks that the prefix holds no index or one with this schema (members of another schema could not be decoded);
   * throws an {@link IllegalStateException} that says how to resolve a conflict.
   */
  void checkSchema(Map<byte[], byte[]> metaHash) {
    if (metaHash.isEmpty()) {
      return;
    }
    RedisIndexMeta existing;
    try {
      existing = RedisIndexMeta.fromHash(metaHash);
    } catch (IllegalArgumentException e) {
      throw RedisFailure.of(conflict("an index this version cannot read (" + e.getMessage() + ")"), e);
    }
    if (!existing.sameSchema(schema())) {
      throw RedisFailure.of(conflict("the index of " + existing.describeSchema() + ", not of "
          + schema().describeSchema()), null);
    }
  }

  private String conflict(String what) {
    return "key prefix " + Json.quote(keyPrefix()) + " at " + address() + " holds " + what
        + "; choose another --redisKeyPrefix, or delete that index's keys first";
  }

  /** Records the schema if the prefix is new, and checks it otherwise. Idempotent. */
  void recordSchema(Jedis j) {
    Map<byte[], byte[]> fields = schema().schemaFields();
    List<byte[]> args = new ArrayList<>();
    fields.forEach((k, v) -> {
      args.add(k);
      args.add(v);
    });
    Object reply = j.eval(RECORD_SCHEMA.getBytes(StandardCharsets.UTF_8), List.of(layout().metaKey()), args);
    checkSchema(pairs(reply));
  }

  /** HGETALL's flat reply as a map. */
  static Map<byte[], byte[]> pairs(Object reply) {
    Map<byte[], byte[]> m = new LinkedHashMap<>();
    List<?> flat = (List<?>) reply;
    for (int i = 0; i + 1 < flat.size(); i += 2) {
      m.put((byte[]) flat.get(i), (byte[]) flat.get(i + 1));
    }
    return m;
  }

  /** The registry's value for this index: what it indexes, for someone listing the indexes of a database. */
  byte[] registryValue() {
    RedisIndexMeta schema = schema();
    String what = schema.table() + (schema.indexName() == null ? "" : "/" + schema.indexName());
    return what.getBytes(StandardCharsets.UTF_8);
  }
}
