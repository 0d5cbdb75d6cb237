package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisFailure;
import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.Backfill;

import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.PCollectionView;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.ScanParams;

/**
 * The Redis load's last step, run once after every group is published: checks that Redis still holds every group
 * this build published (a restart without persistence loses them silently; groups the change stream changed since,
 * which have a ledger, are not counted as lost), records the build in the meta hash,
 * removes the groups that the table no longer has, removes the temporary sets of builds that are not running (their
 * lease is gone), and releases this build's lease.
 */
final class FinishRedisBuildFn extends DoFn<String, RedisLoadSummary> {
  static final int CHECK_BATCH = 1_000;
  private static final int SCAN_COUNT = 1_000;
  private static final int MAX_EXAMPLES = 5;

  /** KEYS: group stamp, live set (one hash slot). ARGV: the stamp it had. Removes the group if it still has it. */
  static final byte[] REMOVE_GROUP =
      ("if redis.call('GET', KEYS[1]) == ARGV[1] then\n"
              + "  redis.call('UNLINK', KEYS[2])\n"
              + "  redis.call('DEL', KEYS[1])\n"
              + "  return 1\n"
              + "end\n"
              + "return 0")
          .getBytes(StandardCharsets.UTF_8);

  /**
   * KEYS: meta hash, load lease, lease token counter (one hash slot). ARGV: the lease's token, then field/value pairs.
   * Writes the fields if the lease is still the token's ({@link RedisLoadLease#stillHeld}) and returns 1; else returns
   * the lease's value (nil: it expired).
   */
  static final byte[] RECORD_FENCED =
      (RedisLoadLease.stillHeld(2, 3, 1)
              + "if not ok then return held or false end\n"
              + "for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end\n"
              + "return 1")
          .getBytes(StandardCharsets.UTF_8);

  private final RedisTarget target;
  private final PCollectionView<Iterable<GroupPublished>> published;
  private final Counter retries = Metrics.counter(Backfill.METRICS, "redisRetries");
  private final Counter groupsRemoved = Metrics.counter(Backfill.METRICS, "redisGroupsRemoved");
  private final Counter staleRemoved = Metrics.counter(Backfill.METRICS, "redisStaleKeysRemoved");
  private transient RedisSession redis;
  private transient RedisLayout layout;

  FinishRedisBuildFn(RedisTarget target, PCollectionView<Iterable<GroupPublished>> published) {
    this.target = target;
    this.published = published;
  }

  @Setup
  public void setup() {
    layout = target.layout();
    redis = target.session("pagemark-finish", retries);
  }

  @ProcessElement
  public void process(ProcessContext c) {
    long groups = 0;
    long entries = 0;
    long ties = 0;
    long unresolved = 0;
    List<String> lost = new ArrayList<>();
    long lostCount = 0;
    List<GroupPublished> batch = new ArrayList<>(CHECK_BATCH);
    for (GroupPublished g : c.sideInput(published)) {
      groups++;
      entries += g.members();
      ties += g.tieRuns();
      unresolved += g.tieRunsUnresolved();
      batch.add(g);
      if (batch.size() == CHECK_BATCH) {
        lostCount += checkStillThere(batch, lost);
        batch.clear();
      }
    }
    lostCount += checkStillThere(batch, lost);
    if (lostCount > 0) {
      throw RedisFailure.of("Redis at " + target.address() + " no longer holds " + lostCount + " of the " + groups
          + " groups this build published (e.g. " + String.join(", ", lost) + "): did it restart without"
          + " persistence, or evict keys under maxmemory? Run the backfill again", null);
    }
    RedisIndexMeta meta = target.schema().finished(target.buildId(), System.currentTimeMillis(), entries, groups);
    Map<byte[], byte[]> fields = new LinkedHashMap<>(meta.schemaFields());
    fields.putAll(meta.buildFields());
    byte[] prefix = target.keyPrefix().getBytes(StandardCharsets.UTF_8);
    // The schema again too: a Redis that restarted without persistence during the load lost the first write.
    byte[] metaKey = layout.metaKey();
    if (target.loadLeaseToken() == null) {
      redis.call("record build " + target.buildId(), metaKey, j -> j.hset(metaKey, fields));
    } else {
      // the lease and the meta hash share the index's slot: the check and the record are one atomic step
      byte[] lease = layout.loaderLeaseKey();
      List<byte[]> args = new ArrayList<>();
      args.add(Long.toString(target.loadLeaseToken()).getBytes(StandardCharsets.US_ASCII));
      fields.forEach((k, v) -> {
        args.add(k);
        args.add(v);
      });
      Object r = redis.call("record build " + target.buildId(), metaKey,
          j -> j.eval(RECORD_FENCED, List.of(metaKey, lease, layout.loaderTokenKey()), args));
      if (!Long.valueOf(1).equals(r)) {
        throw target.fencedOut("record build " + target.buildId(), (byte[]) r);
      }
    }
    redis.call("list the index in the registry", RedisLayout.REGISTRY,
        j -> j.hset(RedisLayout.REGISTRY, prefix, target.registryValue()));
    target.checkLoadLease(redis, "remove the groups of other builds");
    long removed = removeGroupsOfOtherBuilds();
    long stale = removeStaleTemporarySets();
    byte[] lease = layout.leaseKey(target.buildId());
    redis.call("release the lease of build " + target.buildId(), lease, j -> j.del(lease));
    c.output(new RedisLoadSummary(target.buildId(), target.address().toString(), target.keyPrefix(), groups,
        entries, ties, unresolved, removed, stale));
  }

  /** Counts the groups of a batch whose live set is gone or not this build's; adds a few examples to {@code lost}. */
  private long checkStillThere(List<GroupPublished> batch, List<String> lost) {
    if (batch.isEmpty()) {
      return 0;
    }
    long n = 0;
    for (GroupPublished g : batch) {
      // A group's keys share its hash slot, but groups spread over a cluster's masters: one round trip per group.
      byte[] live = layout.liveKey(g.group());
      List<Object> replies = redis.call("check the published groups", live, j -> {
        Pipeline p = j.pipelined();
        p.get(layout.stampKey(g.group()));
        p.zcard(live);
        p.exists(layout.ledgerKey(g.group()));
        return RedisSession.checkReplies(p.syncAndReturnAll());
      });
      byte[] stamp = (byte[]) replies.get(0);
      long count = (Long) replies.get(1);
      // A group the change stream keeps current (it has a ledger) may have changed since it was published; a Redis
      // that lost the group lost its ledger too.
      boolean streamed = (Boolean) replies.get(2);
      if (!streamed && (!Arrays.equals(stamp, g.stamp()) || count != g.members())) {
        n++;
        if (lost.size() < MAX_EXAMPLES) {
          lost.add(g.groupText());
        }
      }
    }
    return n;
  }

  /** Removes every group whose stamp names another build: the table had it when that build ran, not now. */
  private long removeGroupsOfOtherBuilds() {
    long removed = 0;
    ScanParams params = new ScanParams().match(layout.stampKeyPattern()).count(SCAN_COUNT);
    for (List<byte[]> keys : redis.onEachMaster("list the index's groups", j -> RedisTarget.scanAll(j, params))) {
      for (byte[] key : keys) {
        byte[] stamp = redis.call("read a group's stamp", key, j -> j.get(key));
        if (stamp == null || target.buildId().equals(buildOf(stamp))) {
          continue;
        }
        byte[] live = liveKeyOfStampKey(key);
        Object r = redis.call("remove a group the table no longer has", key,
            j -> j.eval(REMOVE_GROUP, List.of(key, live), List.of(stamp)));
        removed += (Long) r;
      }
    }
    groupsRemoved.inc(removed);
    return removed;
  }

  /** The live set beside a stamp key: same tag, suffix {@code g} for {@code s}. */
  private static byte[] liveKeyOfStampKey(byte[] stampKey) {
    byte[] live = stampKey.clone();
    live[live.length - 1] = 'g';
    return live;
  }

  private static String buildOf(byte[] stamp) {
    try {
      return RedisLayout.stampBuild(stamp);
    } catch (IllegalArgumentException e) {
      return null; // not written by pagemark: removed like a group of another build
    }
  }

  /**
   * Removes the temporary sets of this build (none should be left) and of builds without a lease (finished, or
   * abandoned long enough for the lease to expire). A build that is loading renews its lease, so its sets stay.
   */
  private long removeStaleTemporarySets() {
    long removed = 0;
    Map<String, Boolean> running = new HashMap<>();
    ScanParams params = new ScanParams().match(layout.tempKeyPattern()).count(SCAN_COUNT);
    for (List<byte[]> keys : redis.onEachMaster("list temporary sets", j -> RedisTarget.scanAll(j, params))) {
      for (byte[] key : keys) {
        String build = layout.buildOfTempKey(key);
        if (build == null) {
          continue;
        }
        boolean keep = !build.equals(target.buildId()) && running.computeIfAbsent(build, b -> {
          byte[] lease = layout.leaseKey(b);
          return redis.call("check the lease of build " + b, lease, j -> j.exists(lease));
        });
        if (!keep) {
          removed += redis.call("remove a stale temporary set", key, j -> j.unlink(key));
        }
      }
    }
    staleRemoved.inc(removed);
    return removed;
  }

  @Teardown
  public void teardown() {
    if (redis != null) {
      redis.close();
    }
  }
}
