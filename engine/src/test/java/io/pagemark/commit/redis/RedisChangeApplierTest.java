package io.pagemark.commit.redis;

import io.pagemark.change.ChangeScenario;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.change.Records;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;
import io.pagemark.order.TieOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

/**
 * The Redis applier against a real redis-server: a shuffled stream with duplicates leaves exactly the table's
 * entries, and applying it again changes no byte; out-of-order versions; moves between groups; inserts into and
 * removals from runs of equal sort keys (rewritten, known or unknown order); the catch-up after a backfill published
 * a set scanned in the middle of the stream.
 */
@ExtendWith(RedisExtension.class)
class RedisChangeApplierTest {
  static final String PREFIX = "t:";
  RedisServer redis;
  final RedisLayout layout = new RedisLayout(PREFIX);
  final long now = System.currentTimeMillis();

  @BeforeEach
  void flush(RedisServer redis) {
    this.redis = redis;
    try (Jedis j = redis.client()) {
      j.flushAll();
    }
  }

  RedisChangeApplier applier(TieOrder ties) {
    RedisSession s = new RedisSession(RedisAddress.parse(redis.uri()), "test",
        RedisBackoff.exponential(Duration.ofSeconds(10)), () -> {});
    return new RedisChangeApplier(s, layout, Records.SCHEMA, ties, TimeUnit.HOURS.toMillis(24), () -> now);
  }

  static void applyByGroup(RedisChangeApplier a, List<IndexChange> changes) {
    Map<KeyValue, List<IndexChange>> byGroup = new TreeMap<>();
    changes.forEach(c -> byGroup.computeIfAbsent(c.group(), g -> new ArrayList<>()).add(c));
    byGroup.forEach(a::apply);
  }

  @Test
  void shuffledStreamWithDuplicatesLeavesTheTablesEntriesAndAReplayChangesNothing() {
    Random r = new Random(7);
    ChangeScenario s = new ChangeScenario(7, 1500, 120, now - 3_600_000);
    List<IndexChange> all = new ArrayList<>(s.changes(0, s.records.size()));
    List<IndexChange> delivered = new ArrayList<>(all);
    for (IndexChange c : all) {
      if (r.nextDouble() < 0.1) {
        delivered.add(c);
      }
    }
    // out of order within a flush (a batch), in order across flushes, as one shard delivers records
    try (RedisChangeApplier a = applier(TieOrder.UNKNOWN)) {
      for (int from = 0; from < delivered.size(); ) {
        int to = Math.min(delivered.size(), from + 1 + r.nextInt(60));
        List<IndexChange> batch = new ArrayList<>(delivered.subList(from, to));
        Collections.shuffle(batch, r);
        applyByGroup(a, batch);
        from = to;
      }
      assertEntries(s.entriesAfter(s.records.size()));
      Map<String, List<String>> before = dump();
      List<IndexChange> again = new ArrayList<>(all);
      Collections.shuffle(again, r);
      applyByGroup(a, again);
      assertThat("a replay changes no member", dump(), equalTo(before));
    }
  }

  @Test
  void anOlderChangeDeliveredAfterANewerOneChangesNothingAndRemovesStrays() {
    KeyValue g = KeyValue.ofString("a");
    IndexChange insert = change(g, "i1", 1, null, "s1");
    IndexChange move = change(g, "i1", 2, "s1", "s2");
    try (RedisChangeApplier a = applier(TieOrder.UNKNOWN)) {
      a.apply(g, List.of(move));
      RedisChangeApplier.Result r = a.apply(g, List.of(insert));
      assertThat(r.applied(), is(0L));
      assertThat(entries(g), equalTo(List.of(entry(g, "s2", "i1"))));
      // i2: s1, then s2, then s3, delivered first, third, second: the third leaves a stray at s1 (it names s2),
      // which the late second change, stale, removes
      a.apply(g, List.of(change(g, "i2", 5, null, "s1")));
      a.apply(g, List.of(change(g, "i2", 7, "s2", "s3")));
      assertThat(entries(g), equalTo(List.of(entry(g, "s1", "i2"), entry(g, "s2", "i1"), entry(g, "s3", "i2"))));
      a.apply(g, List.of(change(g, "i2", 6, "s1", "s2")));
      assertThat(entries(g), equalTo(List.of(entry(g, "s2", "i1"), entry(g, "s3", "i2"))));
    }
  }

  @Test
  void moveBetweenGroupsLeavesTheOldGroupAndEmptiesItAway() {
    KeyValue a = KeyValue.ofString("a");
    KeyValue b = KeyValue.ofString("b");
    try (RedisChangeApplier ap = applier(TieOrder.UNKNOWN)) {
      ap.apply(a, List.of(change(a, "i1", 1, null, "s1")));
      ap.apply(b, List.of(change(b, "i1", 2, null, "s1")));
      ap.apply(a, List.of(change(a, "i1", 2, "s1", null)));
      assertThat(entries(b), equalTo(List.of(entry(b, "s1", "i1"))));
      try (Jedis j = redis.client()) {
        assertThat("an empty group is gone", j.exists(layout.liveKey(RedisLayout.groupBytes(a))), is(false));
        assertThat(j.get(layout.stampKey(RedisLayout.groupBytes(a))) == null, is(true));
        assertThat(j.get(layout.stampKey(RedisLayout.groupBytes(b))) != null, is(true));
      }
    }
  }

  @Test
  void insertIntoAndRemoveFromARunRewriteTheRun() {
    KeyValue g = KeyValue.ofString("a");
    // DynamoDB's order, as a tie order would learn it: descending item ids both ways
    TieOrder reversed = (group, sortKey, run) -> {
      int n = run.size();
      int[] asc = new int[n];
      for (int k = 0; k < n; k++) {
        asc[k] = n - 1 - k;
      }
      return new TieOrder.Resolved(asc, asc.clone());
    };
    try (RedisChangeApplier a = applier(reversed)) {
      a.apply(g, List.of(change(g, "i1", 1, null, "s"), change(g, "i2", 2, null, "s"),
          change(g, "u", 3, null, "t")));
      assertThat(records(g).get(0), equalTo(new IndexRecord(0, 2, true, 0, entry(g, "s", "i2").keys())));
      a.apply(g, List.of(change(g, "i3", 4, null, "s")));
      List<IndexRecord> run = records(g).subList(0, 3);
      assertThat(run.stream().map(x -> x.keys().get(1).text()).toList(), equalTo(List.of("i3", "i2", "i1")));
      for (int k = 0; k < 3; k++) {
        assertThat(run.get(k).tiePosition(), is(k));
        assertThat(run.get(k).runLength(), is(3));
        assertThat(run.get(k).runOrderKnown(), is(true));
      }
      assertThat("the unique entry is untouched", records(g).get(3), equalTo(IndexRecord.unique(
          entry(g, "t", "u").keys())));
    }
    try (RedisChangeApplier a = applier(TieOrder.UNKNOWN)) {
      a.apply(g, List.of(change(g, "i2", 5, "s", null)));
      List<IndexRecord> run = records(g).subList(0, 2);
      assertThat(run.stream().map(x -> x.keys().get(1).text()).toList(), equalTo(List.of("i1", "i3")));
      assertThat(run.get(0), equalTo(new IndexRecord(0, 2, false, 1, entry(g, "s", "i1").keys())));
      assertThat(run.get(1), equalTo(new IndexRecord(1, 2, false, 0, entry(g, "s", "i3").keys())));
      a.apply(g, List.of(change(g, "i1", 6, "s", "t")));
      assertThat("a run of one is a unique entry again", records(g).get(0),
          equalTo(IndexRecord.unique(entry(g, "s", "i3").keys())));
      assertThat(records(g).get(1).runLength(), is(2));
    }
  }

  @Test
  void changesAppliedWhileABackfillScannedAreReappliedOverTheSetItPublishes() {
    long start = now - 3_600_000;
    ChangeScenario s = new ChangeScenario(11, 1200, 80, start);
    int scanAt = 700;
    List<IndexChange> changes = s.changes(0, s.records.size());
    try (RedisChangeApplier a = applier(TieOrder.UNKNOWN)) {
      // the stream applies everything up to record 1000 while the backfill scans the table as of record 700
      List<IndexChange> first = s.changes(0, 1000);
      applyByGroup(a, first);
      // the backfill began 12 minutes before record 700 (its build id holds its start); it publishes the scan
      String build = io.pagemark.format.BuildIds.newId(s.millis(scanAt) - 12 * 60_000);
      Map<KeyValue, List<IndexEntry>> scanned = s.entriesAfter(scanAt);
      try (Jedis j = redis.client()) {
        for (Map.Entry<KeyValue, List<IndexEntry>> e : scanned.entrySet()) {
          byte[] field = RedisLayout.groupBytes(e.getKey());
          byte[] live = layout.liveKey(field);
          j.del(live);
          j.del(layout.stampKey(field));
          for (IndexEntry x : e.getValue()) {
            j.zadd(live, 0, SortedSetMember.encode(IndexRecord.unique(x.keys()), Records.SCHEMA.storedAttributes()));
          }
          if (!e.getValue().isEmpty()) {
            j.set(layout.stampKey(field), RedisLayout.stamp(build, e.getKey()));
          }
        }
        j.hset(layout.metaKey(), "buildId".getBytes(), build.getBytes());
      }
      // (the scanned runs were written as unique entries: only groups that the catch-up rewrites are checked
      // record by record below, after the rest of the stream)
      assertThat(a.catchUp(), greaterThan(0L));
      assertThat("caught up once", a.catchUp(), is(-1L));
      applyByGroup(a, s.changes(1000, s.records.size()));
      Map<KeyValue, List<IndexEntry>> expected = s.entriesAfter(s.records.size());
      for (Map.Entry<KeyValue, List<IndexEntry>> e : expected.entrySet()) {
        List<IndexEntry> want = new ArrayList<>(e.getValue());
        want.sort(IndexEntry.ORDER);
        assertThat("group " + e.getKey(), entries(e.getKey()), equalTo(want));
      }
    }
    assertThat(changes.size(), greaterThan(1000));
  }

  // --- helpers

  /** Versions of the hand-made changes: a minute ago plus their number in µs. */
  static final long BASE_MICROS = (System.currentTimeMillis() - 60_000) * 1000;

  static IndexChange change(KeyValue g, String item, long micros, String removedSort, String addedSort) {
    return new IndexChange(g, List.of(KeyValue.ofString(item)), new Version(BASE_MICROS + micros, ""),
        removedSort == null ? null : List.of(KeyValue.ofString(removedSort), KeyValue.ofString(item)),
        addedSort == null ? null : List.of(KeyValue.ofString(addedSort), KeyValue.ofString(item)));
  }

  static IndexEntry entry(KeyValue g, String sort, String item) {
    return new IndexEntry(g, List.of(KeyValue.ofString(sort), KeyValue.ofString(item)));
  }

  List<IndexRecord> records(KeyValue g) {
    try (Jedis j = redis.client()) {
      List<IndexRecord> out = new ArrayList<>();
      for (byte[] m : j.zrange(layout.liveKey(RedisLayout.groupBytes(g)), 0, -1)) {
        out.add(SortedSetMember.decode(m, Records.SCHEMA.storedAttributes()));
      }
      return out;
    }
  }

  List<IndexEntry> entries(KeyValue g) {
    List<IndexEntry> out = new ArrayList<>();
    for (IndexRecord x : records(g)) {
      out.add(new IndexEntry(g, x.keys()));
    }
    return out;
  }

  /** Every group's set in rank order equals the entries, and every run's fields are consistent. */
  void assertEntries(Map<KeyValue, List<IndexEntry>> expected) {
    for (Map.Entry<KeyValue, List<IndexEntry>> e : expected.entrySet()) {
      List<IndexEntry> want = new ArrayList<>(e.getValue());
      want.sort(IndexEntry.ORDER);
      assertThat("group " + e.getKey(), entries(e.getKey()), equalTo(want));
      List<IndexRecord> recs = records(e.getKey());
      for (int i = 0; i < recs.size(); ) {
        int n = recs.get(i).runLength();
        for (int k = 0; k < n; k++) {
          IndexRecord x = recs.get(i + k);
          assertThat("run fields in group " + e.getKey(), List.of(x.tiePosition(), x.runLength(),
              x.sortKey().equals(recs.get(i).sortKey())), equalTo(List.of(k, n, true)));
        }
        assertThat("run ends", i + n == recs.size() || !recs.get(i + n).sortKey().equals(recs.get(i).sortKey()),
            is(true));
        i += n;
      }
    }
  }

  Map<String, List<String>> dump() {
    Map<String, List<String>> m = new TreeMap<>();
    try (Jedis j = redis.client()) {
      for (byte[] key : j.keys("*".getBytes())) {
        if (j.type(key).equals("zset")) {
          m.put(HexFormat.of().formatHex(key), j.zrange(key, 0, -1).stream().map(HexFormat.of()::formatHex).toList());
        }
      }
    }
    return m;
  }
}
