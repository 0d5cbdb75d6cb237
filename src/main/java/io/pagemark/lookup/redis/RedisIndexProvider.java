package io.pagemark.lookup.redis;

import io.pagemark.lookup.Index;
import io.pagemark.lookup.IndexProvider;
import java.io.IOException;

/**
 * Opens Redis indexes loaded by backfill {@code --redis}: {@code redis://HOST[:PORT][/DB][?prefix=P]}, a Redis
 * Cluster's {@code redis-cluster://HOST:PORT[,HOST:PORT...][?prefix=P]} (or {@code rediss://}, which it refuses with
 * a message). Needs the optional Jedis dependency; without it, opening fails
 * with what to add. Found by {@link java.util.ServiceLoader}; applications call
 * {@link io.pagemark.lookup.Indexes#open(String)}. Stateless and thread-safe.
 */
public final class RedisIndexProvider implements IndexProvider {
  @Override
  public boolean accepts(String spec) {
    return spec.startsWith("redis://") || spec.startsWith("rediss://") || spec.startsWith("redis-cluster://");
  }

  @Override
  public Index open(String spec) throws IOException {
    try {
      return RedisIndex.open(spec, null);
    } catch (NoClassDefFoundError e) {
      throw noJedis(e);
    }
  }

  @Override
  public Index open(String spec, String buildId) throws IOException {
    try {
      return RedisIndex.open(spec, buildId);
    } catch (NoClassDefFoundError e) {
      throw noJedis(e);
    }
  }

  @Override
  public String usage() {
    return "redis://HOST[:PORT][/DB][?prefix=P] or redis-cluster://HOST:PORT[,HOST:PORT...][?prefix=P]";
  }

  private static IOException noJedis(NoClassDefFoundError e) {
    return new IOException("Redis indexes need the Jedis client on the classpath (redis.clients:jedis 5.2.0, an"
        + " optional dependency of pagemark-lookup): " + e.getMessage(), e);
  }
}
