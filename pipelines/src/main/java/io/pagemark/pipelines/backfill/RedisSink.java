package io.pagemark.pipelines.backfill;

import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.transforms.sink.redis.RedisLoadLease;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;

/** Turns {@link RedisOptions} into the Redis sink of a backfill. */
public final class RedisSink {
  private RedisSink() {}

  /**
   * Checks the Redis options without connecting; throws {@link IllegalArgumentException} (a usage error) that names
   * the option. Options without {@code --redis} pass.
   */
  public static void check(RedisOptions o) {
    if (o.getRedis() == null) {
      if (o.getRedisKeyPrefix() != null) {
        throw new IllegalArgumentException("--redisKeyPrefix needs --redis");
      }
      return;
    }
    try {
      RedisAddress.parse(o.getRedis());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--redis: " + e.getMessage());
    }
    if (o.getRedisKeyPrefix() != null) {
      try {
        new RedisLayout(o.getRedisKeyPrefix());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--redisKeyPrefix: " + e.getMessage());
      }
    }
    if (o.getRedisLeaseSeconds() < 1) {
      throw new IllegalArgumentException("--redisLeaseSeconds must be at least 1, not " + o.getRedisLeaseSeconds());
    }
    if (o.getRedisBatchSize() < 1 || o.getRedisBatchSize() > 100_000) {
      throw new IllegalArgumentException(
          "--redisBatchSize must be between 1 and 100000, not " + o.getRedisBatchSize());
    }
  }

  /**
   * The sink the options ask for (the backfill gives it the schema and the build), or null without {@code --redis}.
   */
  public static WriteRedisSortedSets of(RedisOptions o) {
    if (o.getRedis() == null) {
      return null;
    }
    check(o);
    WriteRedisSortedSets w = WriteRedisSortedSets.to(o.getRedis()).withBatchSize(o.getRedisBatchSize());
    return o.getRedisKeyPrefix() == null ? w : w.withKeyPrefix(o.getRedisKeyPrefix());
  }

  /**
   * Takes the load lease of the prefix the backfill will load (null without {@code --redis}); the caller closes it
   * when the backfill ends. Throws {@link RedisLoadLease.Held}, naming the holder and its expiry, when another
   * backfill loads the prefix.
   */
  public static RedisLoadLease lease(BackfillOptions o) throws IOException {
    if (o.getRedis() == null) {
      return null;
    }
    return RedisLoadLease.acquire(RedisAddress.parse(o.getRedis()), keyPrefix(o), holder(o),
        Duration.ofSeconds(o.getRedisLeaseSeconds()));
  }

  /** The prefix the sink loads: {@code --redisKeyPrefix}, or the default one of the table and index. */
  static String keyPrefix(BackfillOptions o) {
    return o.getRedisKeyPrefix() != null
        ? o.getRedisKeyPrefix()
        : RedisLayout.defaultPrefix(o.getTable(), o.getGsi(), o.getGroupAttribute(), o.getSortAttribute());
  }

  private static String holder(BackfillOptions o) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      host = "an unknown host";
    }
    return "pagemark backfill of table " + o.getTable() + ", pid " + ProcessHandle.current().pid() + " on " + host
        + ", started " + Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime())
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
  }
}
