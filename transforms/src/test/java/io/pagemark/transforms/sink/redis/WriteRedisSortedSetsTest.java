package io.pagemark.transforms.sink.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.commit.redis.RedisBackoff;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.order.TieOrder;
import io.pagemark.testing.LocalProcess;
import io.pagemark.testing.RedisServer;
import io.pagemark.testing.SharedRedis;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.TestEntries;
import io.pagemark.transforms.TestPipelineExtension;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.order.OrderGroups;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.order.OrderedPartCoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

/**
 * {@link WriteRedisSortedSets} against a real redis-server, fed by {@link OrderGroups}: each group's live sorted set
 * holds its records in rank order, the build is recorded, what an older build left is cleaned up, and an unreachable
 * server fails the load once Beam's {@code FluentBackoff} has spent the retry time.
 */
@ExtendWith(TestPipelineExtension.class)
class WriteRedisSortedSetsTest {
  static final long T0 = 1_700_000_000_000L;
  static final List<IndexEntry> ENTRIES = TestEntries.of(KeyType.S);

  @Test
  void everyGroupIsPublishedInRankOrderTheBuildRecordedAndOldLeftoversRemoved(TestPipeline p) throws Exception {
    RedisServer redis = SharedRedis.get();
    String prefix = "test:sink:" + UUID.randomUUID() + ":";
    RedisLayout layout = new RedisLayout(prefix);
    KeyValue gone = KeyValue.ofString("gone");
    byte[] abandoned = layout.tempKey("b0", RedisLayout.groupBytes(gone));
    try (Jedis j = redis.client()) {
      // a group an older build published that the table no longer has, and a crashed build's temporary set
      j.zadd(layout.liveKey(RedisLayout.groupBytes(gone)), 0, new byte[] {1});
      j.set(layout.stampKey(RedisLayout.groupBytes(gone)), RedisLayout.stamp("b0", gone));
      j.zadd(abandoned, 0, new byte[] {1});
    }
    PCollection<RedisLoadSummary> summary =
        p.apply(Create.of(ENTRIES).withCoder(IndexEntryCoder.of()))
            .apply(OrderGroups.of(TestEntries.STRINGS).withMaxPartEntries(250))
            .apply(WriteRedisSortedSets.to(redis.uri()).withSchema(TestEntries.STRINGS).withKeyPrefix(prefix)
                .withBuild("b1", T0).withBatchSize(7));
    Map<KeyValue, List<IndexEntry>> groups = TestEntries.byGroup(ENTRIES);
    long runs = groups.values().stream().flatMap(g -> TestEntries.wholeGroup(g, TieOrder.UNKNOWN).stream())
        .filter(r -> r.tiePosition() == 0 && r.runLength() > 1).count();
    PAssert.thatSingleton(summary).isEqualTo(new RedisLoadSummary("b1", RedisAddress.parse(redis.uri()).toString(),
        prefix, groups.size(), ENTRIES.size(), runs, runs, 1, 1));
    PipelineResult result = p.run();
    result.waitUntilFinish();

    try (Jedis j = redis.client()) {
      for (Map.Entry<KeyValue, List<IndexEntry>> g : groups.entrySet()) {
        List<IndexRecord> members = new ArrayList<>();
        for (byte[] m : j.zrange(layout.liveKey(RedisLayout.groupBytes(g.getKey())), 0, -1)) {
          members.add(SortedSetMember.decode(m, TestEntries.STRINGS.storedAttributes()));
        }
        assertThat("group " + g.getKey(), members, equalTo(TestEntries.wholeGroup(g.getValue(), TieOrder.UNKNOWN)));
        assertThat(RedisLayout.stampBuild(j.get(layout.stampKey(RedisLayout.groupBytes(g.getKey())))),
            equalTo("b1"));
      }
      RedisIndexMeta meta = RedisIndexMeta.fromHash(j.hgetAll(layout.metaKey()));
      assertThat(meta.buildId(), equalTo("b1"));
      assertThat(meta.entries(), is((long) ENTRIES.size()));
      assertThat(j.exists(layout.liveKey(RedisLayout.groupBytes(gone))), is(false));
      assertThat(j.exists(abandoned), is(false));
      assertThat(j.exists(layout.leaseKey("b1")), is(false));
      assertThat(j.keys(layout.tempKeyPattern()), empty());
    }
    assertThat(counter(result, "redisMembersLoaded"), is((long) ENTRIES.size()));
    assertThat(counter(result, "redisGroupsPublished"), is((long) groups.size()));
    assertThat(counter(result, "redisRetries"), is(0L));
  }

  @Test
  void anUnreachableRedisFailsTheLoadOnceTheRetryTimeIsSpent(TestPipeline p) throws Exception {
    p.enableAbandonedNodeEnforcement(false);
    String uri = "redis://127.0.0.1:" + LocalProcess.freePort() + "/0";
    OrderedPart part = new OrderedPart(KeyValue.ofString("g"), 0, 1,
        List.of(IndexRecord.unique(List.of(KeyValue.ofString("s"), KeyValue.ofString("p")))));
    p.apply(Create.of(part).withCoder(OrderedPartCoder.of()))
        .apply(WriteRedisSortedSets.to(uri).withSchema(TestEntries.STRINGS).withBuild("b1", T0)
            .withCheckBeforeRun(false).withMaxRetryTime(Duration.ofSeconds(1)));
    RuntimeException e = assertThrows(RuntimeException.class, () -> p.run().waitUntilFinish());
    String message = rootMessage(e);
    assertThat(message, containsString("cannot reach Redis at " + uri + " ("));
    assertThat(message, containsString(") after 1.0 s of retries while trying to record the index's schema;"
        + " is redis-server running there?"));
  }

  @Test
  void fluentBackoffWaitsAddUpToExactlyTheRetryTime() {
    for (long budget : new long[] {1, 999, 60_000}) {
      RedisBackoff.Waits waits = new FluentRedisBackoff(budget).start();
      long total = 0;
      for (long w = waits.nextMillis(); w != RedisBackoff.STOP; w = waits.nextMillis()) {
        assertThat(w, lessThanOrEqualTo(FluentRedisBackoff.MAX.getMillis() * 3 / 2));
        total += w;
      }
      assertThat(total, is(budget));
    }
    assertThat(new FluentRedisBackoff(0).start().nextMillis(), is(RedisBackoff.STOP));
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> WriteRedisSortedSets.to("redis://h").withMaxRetryTime(Duration.ofSeconds(-1))).getMessage(),
        equalTo("the retry time must not be negative, not PT-1S"));
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> WriteRedisSortedSets.to("redis://h").withBatchSize(0)).getMessage(),
        equalTo("the Redis batch size must be between 1 and 100000, not 0"));
  }

  static long counter(PipelineResult result, String name) {
    long total = 0;
    for (MetricResult<Long> c : result.metrics().queryMetrics(MetricsFilter.builder()
        .addNameFilter(MetricNameFilter.named(Backfill.METRICS, name)).build()).getCounters()) {
      total += c.getAttempted();
    }
    return total;
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage();
  }
}
