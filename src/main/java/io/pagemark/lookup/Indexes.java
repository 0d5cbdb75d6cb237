package io.pagemark.lookup;

import io.pagemark.lookup.file.FileIndex;

import io.pagemark.lookup.redis.RedisIndex;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Opens an index from the {@code --index} value of the CLI: a directory written by backfill, or a Redis index
 * {@code redis://HOST[:PORT][/DB][?prefix=P]} loaded by backfill {@code --redis} (needs the optional Jedis
 * dependency).
 */
public final class Indexes {
  private Indexes() {}

  /** Opens the current build of the index, or the given build when {@code buildId} is not null. */
  public static Index open(String spec, String buildId) throws IOException {
    // Checked here, not by a Redis class, so that file-only users never load a class that needs Jedis.
    if (spec.startsWith("redis://") || spec.startsWith("rediss://")) {
      return openRedis(spec, buildId);
    }
    Path root = Path.of(spec);
    return buildId == null ? FileIndex.open(root) : FileIndex.open(root, buildId);
  }

  private static Index openRedis(String spec, String buildId) throws IOException {
    try {
      return RedisIndex.open(spec, buildId);
    } catch (NoClassDefFoundError e) {
      throw new IOException("Redis indexes need the Jedis client on the classpath (redis.clients:jedis 5.2.0, an"
          + " optional dependency of pagemark-lookup): " + e.getMessage(), e);
    }
  }
}
