package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisFailure;
import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.Backfill;

import io.pagemark.format.redis.RedisLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.TreeMap;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Publishes a group once all its parts are loaded: in one script (atomic in Redis), checks that the temporary set
 * holds exactly the members the parts loaded, RENAMEs it over the live set and stamps the group with the build. A
 * reader sees the old set or the new one, never a part of either, and other groups are not touched. Safe to retry: a
 * group this build already published is recognized. A temporary set that lost members (Redis restarted without
 * persistence, or evicted it) is never published: the pipeline fails and says so. A build that lost the prefix's
 * load lease to another backfill publishes nothing more.
 */
final class PublishGroupFn extends DoFn<KV<byte[], Iterable<PartLoaded>>, GroupPublished> {
  /**
   * KEYS: temporary set, live set, group stamp (one hash slot). ARGV: expected members, stamp. Returns 1 when
   * published, 2 when this build had published it already, else -1 - (members found in the temporary set).
   */
  static final byte[] PUBLISH =
      ("local n = redis.call('ZCARD', KEYS[1])\n"
              + "local want = tonumber(ARGV[1])\n"
              + "if n == want then\n"
              + "  redis.call('RENAME', KEYS[1], KEYS[2])\n"
              + "  redis.call('SET', KEYS[3], ARGV[2])\n"
              + "  return 1\n"
              + "end\n"
              + "if n == 0 and redis.call('GET', KEYS[3]) == ARGV[2]"
              + " and redis.call('ZCARD', KEYS[2]) == want then\n"
              + "  return 2\n"
              + "end\n"
              + "return -1 - n")
          .getBytes(StandardCharsets.UTF_8);

  private final RedisTarget target;
  private final Counter published = Metrics.counter(Backfill.METRICS, "redisGroupsPublished");
  private final Counter retries = Metrics.counter(Backfill.METRICS, "redisRetries");
  private transient RedisSession redis;
  private transient RedisLayout layout;

  PublishGroupFn(RedisTarget target) {
    this.target = target;
  }

  @Setup
  public void setup() {
    layout = target.layout();
    redis = target.session("pagemark-publish", retries);
  }

  @ProcessElement
  public void process(@Element KV<byte[], Iterable<PartLoaded>> group, OutputReceiver<GroupPublished> out) {
    TreeMap<Integer, PartLoaded> parts = new TreeMap<>();
    for (PartLoaded p : group.getValue()) {
      parts.put(p.part(), p); // a part delivered twice (a retried bundle) counts once
    }
    PartLoaded any = parts.firstEntry().getValue();
    if (parts.size() != any.parts() || parts.firstKey() != 0 || parts.lastKey() != any.parts() - 1) {
      throw RedisFailure.of("group " + any.groupText() + ": only " + parts.size() + " of its " + any.parts()
          + " parts were loaded; nothing of it was published", null);
    }
    long members = 0;
    long ties = 0;
    long unresolved = 0;
    for (PartLoaded p : parts.values()) {
      members += p.members();
      ties += p.tieRuns();
      unresolved += p.tieRunsUnresolved();
    }
    long expected = members;
    byte[] temp = layout.tempKey(target.buildId(), any.group());
    byte[] live = layout.liveKey(any.group());
    byte[] stamp = any.stamp();
    byte[] stampKey = layout.stampKey(any.group());
    target.checkLoadLease(redis, "publish group " + any.groupText());
    Object r = redis.call("publish group " + any.groupText(), live, j -> j.eval(PUBLISH,
        List.of(temp, live, stampKey),
        List.of(Long.toString(expected).getBytes(StandardCharsets.US_ASCII), stamp)));
    long result = (Long) r;
    if (result < 0) {
      long found = -1 - result;
      String why = found < expected
          ? "did Redis restart without persistence, or evict keys under maxmemory?"
          : "did another process write to it?";
      throw RedisFailure.of("group " + any.groupText() + ": its temporary set holds " + found + " of the "
          + expected + " members this build loaded into it, so it was not published (" + why + "); run the backfill"
          + " again", null);
    }
    published.inc();
    out.output(new GroupPublished(any.group(), stamp, any.groupText(), members, ties, unresolved));
  }

  @Teardown
  public void teardown() {
    if (redis != null) {
      redis.close();
    }
  }
}
