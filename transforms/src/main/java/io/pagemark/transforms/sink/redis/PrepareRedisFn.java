package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.Backfill;

import io.pagemark.format.redis.RedisLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

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
    redis.call("record the index's schema", j -> {
      target.recordSchema(j);
      j.hset(RedisLayout.REGISTRY, prefix, target.registryValue());
      j.set(target.layout().leaseKey(buildId), Long.toString(System.currentTimeMillis()).getBytes(
          StandardCharsets.US_ASCII), SetParams.setParams().px(target.temporaryTtlMillis()));
      return null;
    });
    byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
    ScanParams leftovers = new ScanParams().match(target.layout().tempKeyPattern(buildId)).count(1_000);
    do {
      byte[] from = cursor;
      ScanResult<byte[]> page = redis.call("list leftover temporary sets", j -> j.scan(from, leftovers));
      for (byte[] key : page.getResult()) {
        redis.call("remove a leftover temporary set", j -> j.unlink(key));
      }
      cursor = page.getCursorAsBytes();
    } while (!Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    out.output(buildId);
  }

  @Teardown
  public void teardown() {
    if (redis != null) {
      redis.close();
    }
  }
}
