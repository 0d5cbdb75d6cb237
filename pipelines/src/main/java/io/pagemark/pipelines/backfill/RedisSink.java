package io.pagemark.pipelines.backfill;

import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;

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
}
