package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.order.OrderedPart;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.SetParams;

/**
 * Loads one part of a group into the build's temporary set of the group: ZADD batches of {@code batchSize} members
 * (score 0), pipelined {@value #BATCHES_PER_ROUND_TRIP} to a round trip, each round trip also renewing the temporary
 * set's TTL and the build's lease. A round trip that fails on a dropped connection is sent again (ZADD of the same
 * members is idempotent, so nothing is duplicated). If the server restarted meanwhile (its run id changed), what the
 * part had loaded may be gone with it, so the part is loaded again from its first member.
 */
final class LoadPartFn extends DoFn<OrderedPart, KV<byte[], PartLoaded>> {
  static final int BATCHES_PER_ROUND_TRIP = 8;

  private final RedisTarget target;
  private final Counter members = Metrics.counter(Backfill.METRICS, "redisMembersLoaded");
  private final Counter batches = Metrics.counter(Backfill.METRICS, "redisBatches");
  private final Counter retries = Metrics.counter(Backfill.METRICS, "redisRetries");
  private final Counter reloads = Metrics.counter(Backfill.METRICS, "redisPartsReloaded");
  private transient RedisSession redis;
  private transient RedisLayout layout;

  LoadPartFn(RedisTarget target) {
    this.target = target;
  }

  @Setup
  public void setup() {
    layout = target.layout();
    redis = target.session("pagemark-load", retries);
  }

  @ProcessElement
  public void process(@Element OrderedPart part, OutputReceiver<KV<byte[], PartLoaded>> out) {
    byte[] group = RedisLayout.groupBytes(part.group());
    byte[] temp = layout.tempKey(target.buildId(), group);
    byte[] lease = layout.leaseKey(target.buildId());
    byte[] leaseValue = Long.toString(target.buildTimeMillis()).getBytes(StandardCharsets.US_ASCII);
    List<IndexRecord> records = part.records();
    List<KeyAttribute> attributes = target.schema().attributes();
    String what = "load part " + (part.part() + 1) + " of " + part.parts() + " of group " + part.group();
    int batchSize = target.batchSize();
    int perTrip = batchSize * BATCHES_PER_ROUND_TRIP;
    String server = redis.runId(temp);
    int from = 0;
    while (from < records.size()) {
      int start = from;
      int end = Math.min(records.size(), start + perTrip);
      redis.call(what, temp, j -> {
        Pipeline p = j.pipelined();
        for (int b = start; b < end; b += batchSize) {
          Map<byte[], Double> batch = new HashMap<>();
          for (IndexRecord r : records.subList(b, Math.min(end, b + batchSize))) {
            batch.put(SortedSetMember.encode(r, attributes), 0.0);
          }
          p.zadd(temp, batch);
        }
        p.pexpire(temp, target.temporaryTtlMillis());
        return RedisSession.checkReplies(p.syncAndReturnAll());
      });
      // The lease has its own hash slot (the index's), so in a cluster it is renewed on its own connection.
      redis.call("renew the lease of build " + target.buildId(), lease,
          j -> j.set(lease, leaseValue, SetParams.setParams().px(target.temporaryTtlMillis())));
      batches.inc((end - start + batchSize - 1) / batchSize);
      String now = redis.runId(temp);
      if (!now.equals(server)) {
        // Redis restarted since this part began (without persistence, the part's earlier batches are gone), or the
        // group's slot moved to another master with its keys: either way, loading again from the first member is
        // safe (ZADD of the same members is idempotent).
        reloads.inc();
        server = now;
        from = 0;
      } else {
        from = end;
      }
    }
    members.inc(records.size());
    OrderedPart.TieRuns ties = part.tieRuns();
    out.output(KV.of(
        groupId(part),
        new PartLoaded(group, RedisLayout.stamp(target.buildId(), part.group()), part.group().toString(),
            part.part(), part.parts(), records.size(), ties.runs(), ties.unresolved())));
  }

  /** The grouping key of a part's group: type code and canonical bytes, as the backfill groups entries. */
  static byte[] groupId(OrderedPart part) {
    byte[] g = part.group().sortableBytes();
    byte[] id = new byte[g.length + 1];
    id[0] = part.group().type().code();
    System.arraycopy(g, 0, id, 1, g.length);
    return id;
  }

  @Teardown
  public void teardown() {
    if (redis != null) {
      redis.close();
    }
  }
}
