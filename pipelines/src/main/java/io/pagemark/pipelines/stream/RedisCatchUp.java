package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.cli.Cli;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.transforms.sink.redis.RedisStreamTarget;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import io.pagemark.format.redis.RedisNodes;

/**
 * Beside a Redis stream's pipeline: every {@value #PERIOD_SECONDS} s, once a backfill into the same prefix has
 * finished, puts the changes the stream applied while it scanned back into the groups it published or removed
 * ({@link io.pagemark.commit.redis.RedisChangeApplier#catchUp}). Groups the stream touches are caught up by the stream itself
 * as soon as it sees their new stamp; this covers the others.
 */
final class RedisCatchUp implements AutoCloseable {
  static final int PERIOD_SECONDS = 2;

  private final ScheduledExecutorService timer;
  private final RedisStreamTarget.Applier applier;

  private RedisCatchUp(RedisStreamTarget target) {
    this.applier = target.openApplier("pagemark-stream-catchup");
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pagemark-redis-catchup");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::run, 0, PERIOD_SECONDS, TimeUnit.SECONDS);
  }

  static RedisCatchUp start(RedisStreamTarget target) {
    return new RedisCatchUp(target);
  }

  private void run() {
    try {
      long groups = applier.applier().catchUp();
      if (groups >= 0) {
        System.err.println("pagemark stream: caught up with the new Redis build: " + groups
            + " groups got back changes made while it scanned");
      }
    } catch (RuntimeException e) {
      System.err.println("pagemark stream: catching up with a new Redis build failed (retried in " + PERIOD_SECONDS
          + " s): " + Cli.rootMessage(e));
    }
  }

  /**
   * Fails (with what to do) when Redis cannot be reached or its prefix holds an index of another schema; a prefix
   * without an index yet is fine (start the stream, then the backfill).
   */
  static void checkSchema(RedisStreamTarget target) {
    Map<byte[], byte[]> meta;
    byte[] metaKey = target.layout().metaKey();
    try (RedisNodes n = target.address().nodes("pagemark-stream-check")) {
      meta = n.onKey(metaKey, j -> j.hgetAll(metaKey));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("cannot reach Redis at " + target.address() + ": "
          + Cli.rootMessage(e), e);
    }
    if (meta.isEmpty()) {
      return;
    }
    RedisIndexMeta have = RedisIndexMeta.fromHash(meta);
    RedisIndexMeta want = RedisIndexMeta.schema(target.schema().table(), target.schema().indexName(),
        target.schema().groupAttribute(), target.schema().groupType(), target.schema().storedAttributes());
    if (!have.sameSchema(want)) {
      throw new IllegalArgumentException("Redis at " + target.address() + " " + target.layout() + " holds the index of "
          + have.describeSchema() + ", not of " + want.describeSchema() + "; choose another --redisKeyPrefix");
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    applier.close();
  }
}
