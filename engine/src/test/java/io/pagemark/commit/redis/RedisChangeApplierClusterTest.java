package io.pagemark.commit.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.change.ChangeScenario;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Records;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.RedisNodes;
import io.pagemark.format.redis.SortedSetMember;
import io.pagemark.key.KeyValue;
import io.pagemark.order.TieOrder;
import io.pagemark.testing.RedisCluster;
import io.pagemark.testing.RedisClusterExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The change stream's applier on a real 3-master Redis Cluster, while {@code redis-cli --cluster reshard} moves slots
 * under it: a shuffled stream with duplicates leaves exactly the table's entries (consistent runs), and applying it
 * again, after the slots moved back, changes no byte.
 */
@ExtendWith(RedisClusterExtension.class)
class RedisChangeApplierClusterTest {
  final long now = System.currentTimeMillis();

  @Test
  void aShuffledStreamAppliedWhileSlotsMoveLeavesTheTablesEntriesAndAReplayChangesNothing(RedisCluster cluster)
      throws Exception {
    RedisLayout layout = new RedisLayout("t:" + System.nanoTime() + ":");
    RedisAddress address = RedisAddress.parse(cluster.uri());
    Random r = new Random(3);
    ChangeScenario s = new ChangeScenario(3, 1500, 120, now - 3_600_000);
    List<IndexChange> all = new ArrayList<>(s.changes(0, s.records.size()));
    List<IndexChange> delivered = new ArrayList<>(all);
    for (IndexChange c : all) {
      if (r.nextDouble() < 0.1) {
        delivered.add(c);
      }
    }
    Set<KeyValue> groups = new HashSet<>();
    all.forEach(c -> groups.add(c.group()));
    Map<KeyValue, Integer> ownerBefore = owners(cluster, layout, groups);
    AtomicLong retries = new AtomicLong();
    RedisSession session = new RedisSession(address, "test", RedisBackoff.exponential(Duration.ofSeconds(30)),
        retries::incrementAndGet);
    try (RedisChangeApplier a = new RedisChangeApplier(session, layout, Records.SCHEMA, TieOrder.UNKNOWN,
            TimeUnit.HOURS.toMillis(24), () -> now);
        RedisNodes nodes = address.nodes("test-check")) {
      CompletableFuture<Void> reshard = CompletableFuture.runAsync(() -> {
        try {
          cluster.reshard(0, 1, 1_500);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      int batches = 0;
      int batchesWhileMoving = 0;
      for (int from = 0; from < delivered.size(); batches++) {
        int to = Math.min(delivered.size(), from + 1 + r.nextInt(60));
        List<IndexChange> batch = new ArrayList<>(delivered.subList(from, to));
        Collections.shuffle(batch, r);
        batchesWhileMoving += reshard.isDone() ? 0 : 1;
        RedisChangeApplierTest.applyByGroup(a, batch);
        from = to;
      }
      reshard.get();
      assertThat("batches applied while slots moved", batchesWhileMoving, greaterThan(0));
      assertThat("groups whose slot moved", moved(ownerBefore, owners(cluster, layout, groups)), greaterThan(0L));
      assertEntries(nodes, layout, s.entriesAfter(s.records.size()));
      Map<String, List<String>> before = dump(nodes, layout, groups);
      cluster.reshard(1, 0, 1_500);
      List<IndexChange> again = new ArrayList<>(all);
      Collections.shuffle(again, r);
      RedisChangeApplierTest.applyByGroup(a, again);
      assertThat("a replay changes no member", dump(nodes, layout, groups), equalTo(before));
      assertThat(batches, greaterThan(20));
    }
  }

  private static Map<KeyValue, Integer> owners(RedisCluster cluster, RedisLayout layout, Set<KeyValue> groups) {
    Map<KeyValue, Integer> m = new java.util.HashMap<>();
    for (KeyValue g : groups) {
      m.put(g, cluster.ownerOf(JedisClusterCRC16.getSlot(layout.liveKey(RedisLayout.groupBytes(g)))));
    }
    return m;
  }

  private static long moved(Map<KeyValue, Integer> before, Map<KeyValue, Integer> after) {
    return before.keySet().stream().filter(g -> !before.get(g).equals(after.get(g))).count();
  }

  private static List<IndexRecord> records(RedisNodes nodes, RedisLayout layout, KeyValue g) {
    byte[] key = layout.liveKey(RedisLayout.groupBytes(g));
    List<IndexRecord> out = new ArrayList<>();
    for (byte[] m : nodes.onKey(key, j -> j.zrange(key, 0, -1))) {
      out.add(SortedSetMember.decode(m, Records.SCHEMA.storedAttributes()));
    }
    return out;
  }

  /** Every group's set in rank order equals the entries, and every run's fields are consistent. */
  private static void assertEntries(RedisNodes nodes, RedisLayout layout, Map<KeyValue, List<IndexEntry>> expected) {
    for (Map.Entry<KeyValue, List<IndexEntry>> e : expected.entrySet()) {
      List<IndexEntry> want = new ArrayList<>(e.getValue());
      want.sort(IndexEntry.ORDER);
      List<IndexRecord> recs = records(nodes, layout, e.getKey());
      List<IndexEntry> got = new ArrayList<>();
      recs.forEach(x -> got.add(new IndexEntry(e.getKey(), x.keys())));
      assertThat("group " + e.getKey(), got, equalTo(want));
      for (int i = 0; i < recs.size(); ) {
        int n = recs.get(i).runLength();
        for (int k = 0; k < n; k++) {
          IndexRecord x = recs.get(i + k);
          assertThat("run fields in group " + e.getKey(), List.of(x.tiePosition(), x.runLength(),
              x.sortKey().equals(recs.get(i).sortKey())), equalTo(List.of(k, n, true)));
        }
        i += n;
      }
    }
  }

  private static Map<String, List<String>> dump(RedisNodes nodes, RedisLayout layout, Set<KeyValue> groups) {
    Map<String, List<String>> m = new TreeMap<>();
    for (KeyValue g : groups) {
      byte[] key = layout.liveKey(RedisLayout.groupBytes(g));
      m.put(g.toString(), nodes.onKey(key, j -> j.zrange(key, 0, -1)).stream().map(HexFormat.of()::formatHex)
          .toList());
    }
    return m;
  }
}
