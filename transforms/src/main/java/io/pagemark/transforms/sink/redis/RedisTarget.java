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
import io.pagemark.format.redis.RedisNodes;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

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

  /** The fencing token of the prefix's load lease this build holds, or null when it loads without one. */
  abstract @org.checkerframework.checker.nullness.qual.Nullable Long loadLeaseToken();

  abstract Builder toBuilder();

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

    abstract Builder setLoadLeaseToken(@org.checkerframework.checker.nullness.qual.Nullable Long token);

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

  /**
   * The meta hash under the prefix (empty when there is no index yet); throws an {@link IllegalStateException} that
   * says what to do when the prefix holds an index of format version 1, which lacks the hash tags a cluster needs.
   */
  Map<byte[], byte[]> readMeta(RedisNodes nodes) {
    byte[] meta = layout().metaKey();
    Map<byte[], byte[]> hash = nodes.onKey(meta, j -> j.hgetAll(meta));
    byte[] v1 = layout().formatVersion1MetaKey();
    if (hash.isEmpty() && nodes.onKey(v1, j -> j.exists(v1))) {
      throw formatVersion1();
    }
    return hash;
  }

  /** The failure for a prefix that holds an index of format version 1. */
  RuntimeException formatVersion1() {
    return RedisFailure.of(conflict("an index of Redis index format version 1 (keys without hash tags), which this"
        + " version of pagemark (format version " + RedisLayout.FORMAT_VERSION + ") does not write"), null);
  }

  /**
   * Checks, before a step that publishes, that the prefix's load lease still holds this build's token; throws an
   * {@link IllegalStateException} naming the new holder when another backfill took it over. A build without a lease
   * passes.
   */
  void checkLoadLease(RedisSession redis, String step) {
    Long token = loadLeaseToken();
    if (token == null) {
      return;
    }
    byte[] lease = layout().loaderLeaseKey();
    Object r = redis.call("check the load lease", lease, j -> j.eval(RedisLoadLease.CHECK,
        List.of(lease, layout().loaderTokenKey()), List.of(Long.toString(token).getBytes(StandardCharsets.US_ASCII))));
    if (!Long.valueOf(1).equals(r)) {
      throw fencedOut(step, (byte[]) r);
    }
  }

  /** The failure of a build whose load lease another backfill has taken over (or that expired unrenewed). */
  RuntimeException fencedOut(String step, byte[] held) {
    return RedisFailure.of("Redis at " + address() + " " + layout() + ": build " + buildId() + " lost the load lease"
        + " (its token " + loadLeaseToken() + ") to " + (held == null ? "nobody (it expired unrenewed)"
            : Json.quote(new String(held, StandardCharsets.UTF_8)))
        + ", so it did not " + step + "; another backfill now loads this prefix (was this one paused for longer"
        + " than --redisLeaseSeconds?)", null);
  }

  /** Every key of one node that matches {@code params} (SCAN to the end). */
  static List<byte[]> scanAll(Jedis j, ScanParams params) {
    List<byte[]> keys = new ArrayList<>();
    byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
    do {
      ScanResult<byte[]> page = j.scan(cursor, params);
      keys.addAll(page.getResult());
      cursor = page.getCursorAsBytes();
    } while (!java.util.Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    return keys;
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
