package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.Backfill;

import io.pagemark.format.redis.RedisLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;

/**
 * Runs once before any part is loaded: records the index's schema in its meta hash (or checks it against the one
 * there), lists the index in the database's registry, takes the build's lease, which keeps its temporary sets from
 * being taken for stale ones, and removes temporary sets an earlier attempt of this same build left (they could hold
 * members this attempt does not load).
 */
final class PrepareRedisFn extends DoFn<String, String> {
  private final RedisTarget target;
  private final Counter retries = Metrics.counter(Backfill.METRICS, "redisRetries");
  private transient RedisSession redis;

  PrepareRedisFn(RedisTarget target) {
    this.target = target;
  }

  @Setup
  public void setup() {
    redis = target.session("pagemark-prepare", retries);
  }

  @ProcessElement
  public void process(@Element String buildId, OutputReceiver<String> out) {
    byte[] prefix = target.keyPrefix().getBytes(StandardCharsets.UTF_8);
    byte[] meta = target.layout().metaKey();
    byte[] v1 = target.layout().formatVersion1MetaKey();
    byte[] lease = target.layout().leaseKey(buildId);
    // Three hash slots (the index's keys, the registry, the old format's meta): three calls.
    if (redis.call("record the index's schema", v1, j -> j.exists(v1))
        && redis.call("record the index's schema", meta, j -> !j.exists(meta))) {
      throw target.formatVersion1();
    }
    redis.call("record the index's schema", meta, j -> {
      target.recordSchema(j);
      return j.set(lease, Long.toString(System.currentTimeMillis()).getBytes(StandardCharsets.US_ASCII),
          SetParams.setParams().px(target.temporaryTtlMillis()));
    });
    redis.call("list the index in the registry", RedisLayout.REGISTRY,
        j -> j.hset(RedisLayout.REGISTRY, prefix, target.registryValue()));
    ScanParams leftovers = new ScanParams().match(target.layout().tempKeyPattern(buildId)).count(1_000);
    for (List<byte[]> keys : redis.onEachMaster("list leftover temporary sets", j -> RedisTarget.scanAll(j, leftovers))) {
      for (byte[] key : keys) {
        redis.call("remove a leftover temporary set", key, j -> j.unlink(key));
      }
    }
    out.output(buildId);
  }

  @Teardown
  public void teardown() {
    if (redis != null) {
      redis.close();
    }
  }
}
