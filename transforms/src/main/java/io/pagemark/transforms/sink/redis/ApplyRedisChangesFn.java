package io.pagemark.transforms.sink.redis;

import io.pagemark.change.IndexChange;
import io.pagemark.commit.redis.RedisChangeApplier;
import io.pagemark.transforms.sink.file.StreamToWal;
import io.pagemark.transforms.source.LagBuckets;
import io.pagemark.transforms.source.RecordRef;

import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Applies one flush of one group's changes to its Redis sorted set ({@link RedisChangeApplier}), and records for each
 * applied change the lag from its ApproximateCreationDateTime to the moment it became visible; then names the record
 * of each change (for the shard positions).
 */
final class ApplyRedisChangesFn extends DoFn<KV<String, Iterable<KV<RecordRef, IndexChange>>>, RecordRef> {
  private final RedisStreamTarget target;
  private final Counter applied = Metrics.counter(StreamToWal.METRICS, "changesApplied");
  private final Counter stale = Metrics.counter(StreamToWal.METRICS, "changesStale");
  private final Counter runs = Metrics.counter(StreamToWal.METRICS, "runsRebuilt");
  private final Counter replayed = Metrics.counter(StreamToWal.METRICS, "changesReplayed");
  private final Counter conflicts = Metrics.counter(StreamToWal.METRICS, "redisConflicts");
  private transient RedisStreamTarget.Applier applier;

  ApplyRedisChangesFn(RedisStreamTarget target) {
    this.target = target;
  }

  @Setup
  public void setup() {
    applier = target.applier("pagemark-stream-apply");
  }

  @ProcessElement
  public void process(@Element KV<String, Iterable<KV<RecordRef, IndexChange>>> group,
      OutputReceiver<RecordRef> out) {
    List<IndexChange> changes = new ArrayList<>();
    List<RecordRef> records = new ArrayList<>();
    for (KV<RecordRef, IndexChange> c : group.getValue()) {
      records.add(c.getKey());
      changes.add(c.getValue());
    }
    if (changes.isEmpty()) {
      return;
    }
    RedisChangeApplier.Result r = applier.applier().apply(changes.get(0).group(), changes);
    long now = System.currentTimeMillis();
    for (long micros : r.appliedCreationMicros()) {
      long ms = Math.max(0, now - micros / 1000);
      Metrics.counter(StreamToWal.METRICS, LagBuckets.counterName(LagBuckets.VISIBLE_PREFIX, ms)).inc();
    }
    applied.inc(r.applied());
    stale.inc(r.stale());
    runs.inc(r.runsRebuilt());
    replayed.inc(r.replayed());
    conflicts.inc(r.attempts() - 1);
    records.forEach(out::output);
  }

  @Teardown
  public void teardown() {
    if (applier != null) {
      applier.close();
    }
  }
}
