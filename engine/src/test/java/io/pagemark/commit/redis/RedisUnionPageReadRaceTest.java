package io.pagemark.commit.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Records;
import io.pagemark.format.BuildIds;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.RedisNodes;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.UnionPageStart;
import io.pagemark.lookup.UnionPages;
import io.pagemark.order.TieOrder;
import io.pagemark.testing.RedisCluster;
import io.pagemark.testing.RedisClusterExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Redis union page start read while the change stream rewrites its groups reads each group in one of its states,
 * never a mix: the applier adds and removes an entry at rank 0 of one group, then of the other, a thousand times in all
 * (every page of the union shifts each time), while lookups read union page starts of both orders, including starts
 * inside long runs of equal sort keys of unknown order. Each answer must be the union's page start in one of the four
 * combinations of the two groups' states. On one server and on a 3-master Redis Cluster (the groups in two slots).
 */
class RedisUnionPageReadRaceTest {
  static final KeyValue G1 = KeyValue.ofString("g1");
  static final KeyValue G2 = KeyValue.ofString("g2");
  static final int PAGE_SIZE = 7;
  static final int CHANGES = 1_000;
  static final int MIN_READS = 200;

  @Test
  @ExtendWith(RedisExtension.class)
  void aUnionPageStartReadDuringAThousandChangesEqualsACombinationOfTheGroupsStates(RedisServer redis)
      throws Exception {
    race(redis.uri());
  }

  @Test
  @ExtendWith(RedisClusterExtension.class)
  void onARedisClusterTooEachGroupIsReadInItsOwnSlot(RedisCluster cluster) throws Exception {
    race(cluster.uri());
  }

  static void race(String uri) throws Exception {
    String prefix = "union-race:" + System.nanoTime() + ":";
    RedisLayout layout = new RedisLayout(prefix);
    RedisAddress address = RedisAddress.parse(uri);
    try (RedisNodes nodes = address.nodes("union-race")) {
      RedisIndexMeta meta = RedisIndexMeta.schema("events", "byGroup", "PK2", G1.type(),
          Records.SCHEMA.storedAttributes()).finished(BuildIds.newId(System.currentTimeMillis() - 60_000),
          System.currentTimeMillis(), 0, 0);
      byte[] key = layout.metaKey();
      nodes.onKey(key, j -> j.hset(key, meta.schemaFields()));
      nodes.onKey(key, j -> j.hset(key, meta.buildFields()));
    }
    RedisSession session = new RedisSession(address, "union-race",
        RedisBackoff.exponential(Duration.ofSeconds(10)), () -> {});
    try (RedisChangeApplier applier = new RedisChangeApplier(session, layout, Records.SCHEMA, TieOrder.UNKNOWN,
            TimeUnit.HOURS.toMillis(24), System::currentTimeMillis);
        Index index = Indexes.open(uri + "?prefix=" + prefix)) {
      seed(applier, G1, "p", 50, 0, 25);
      seed(applier, G2, "q", 40, 1, 20);
      // states by "x in g1, y in g2": 00, 10, 11, 01, each reached by one change from the one before
      Map<String, Map<String, UnionPageStart>> states = new HashMap<>();
      states.put("00", pageStarts(index));
      applier.apply(G1, List.of(toggle(G1, "x", 1, true)));
      states.put("10", pageStarts(index));
      applier.apply(G2, List.of(toggle(G2, "y", 2, true)));
      states.put("11", pageStarts(index));
      applier.apply(G1, List.of(toggle(G1, "x", 3, false)));
      states.put("01", pageStarts(index));
      applier.apply(G2, List.of(toggle(G2, "y", 4, false)));
      assertThat("every union page start differs between 00 and 11 (their counts at least)",
          differingUnion(states.get("00"), states.get("11")), is(states.get("00").size()));

      Random random = new Random(19);
      List<String> keys = new ArrayList<>(states.get("00").keySet());
      List<String> mixed = new ArrayList<>();
      Map<String, Integer> seen = new HashMap<>();
      int reads = ReadRace.run(CHANGES, MIN_READS, k -> {
        boolean add = k % 4 < 2;
        if (k % 2 == 0) {
          applier.apply(G1, List.of(toggle(G1, "x", 10 + k, add)));
        } else {
          applier.apply(G2, List.of(toggle(G2, "y", 10 + k, add)));
        }
      }, () -> {
        String key = keys.get(random.nextInt(keys.size()));
        UnionPageStart got = read(index, key);
        String state = null;
        for (Map.Entry<String, Map<String, UnionPageStart>> s : states.entrySet()) {
          if (got.equals(s.getValue().get(key))) {
            state = s.getKey();
          }
        }
        if (state == null) {
          mixed.add(key + ": " + got);
        } else {
          seen.merge(state, 1, Integer::sum);
        }
      });
      assertThat(mixed.size() + " of " + reads + " union page starts match no combination of the groups' states,"
          + " the first: " + mixed.subList(0, Math.min(3, mixed.size())), mixed.size(), is(0));
      assertThat("reads ran while the changes did", reads, greaterThanOrEqualTo(MIN_READS));
      assertThat("reads saw the groups in several states: " + seen, seen.size(), greaterThan(1));
    }
  }

  /** {@code n} items of distinct sort keys, then a run of {@code ties} equal ones (order unknown). */
  static void seed(RedisChangeApplier applier, KeyValue group, String item, int n, int offset, int ties) {
    List<IndexChange> seed = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      seed.add(RedisChangeApplierTest.change(group, String.format("%s%03d", item, i), i, null,
          String.format("s%03d", 2 * i + offset)));
    }
    for (int i = 0; i < ties; i++) {
      seed.add(RedisChangeApplierTest.change(group, String.format("%sm%03d", item, i), 100 + i, null, "m"));
    }
    applier.apply(group, seed);
  }

  /** Adds item {@code item} at the group's first sort key, or removes it again. */
  static IndexChange toggle(KeyValue group, String item, long micros, boolean add) {
    return RedisChangeApplierTest.change(group, item, 300 + micros, add ? null : "a", add ? "a" : null);
  }

  /** Every union page start of both orders, by "ORDER PAGE" (pages that exist in every state only). */
  static Map<String, UnionPageStart> pageStarts(Index index) throws Exception {
    Map<String, UnionPageStart> starts = new HashMap<>();
    for (Order order : Order.values()) {
      for (long page = 1; page <= 135 / PAGE_SIZE; page++) {
        starts.put(order + " " + page, read(index, order + " " + page));
      }
    }
    return starts;
  }

  static UnionPageStart read(Index index, String key) throws Exception {
    String[] parts = key.split(" ");
    try (UnionPages u = index.union(List.of(G1, G2))) {
      return u.pageStart(Long.parseLong(parts[1]), PAGE_SIZE, Order.valueOf(parts[0]));
    }
  }

  static int differingUnion(Map<String, UnionPageStart> a, Map<String, UnionPageStart> b) {
    int n = 0;
    for (String k : a.keySet()) {
      n += a.get(k).equals(b.get(k)) ? 0 : 1;
    }
    return n;
  }
}
