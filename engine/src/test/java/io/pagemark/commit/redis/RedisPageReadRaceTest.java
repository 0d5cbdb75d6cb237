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
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
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
 * A Redis page start read while the change stream rewrites the group is one of the group's states, never a mix: the
 * applier adds and removes an entry at rank 0 a thousand times (every page shifts by one each time) while lookups
 * read page starts of both orders, including starts inside a long run of equal sort keys of unknown order (which
 * need records far from the page start). On one server and on a 3-master Redis Cluster.
 */
class RedisPageReadRaceTest {
  static final String PREFIX = "race:";
  static final KeyValue GROUP = KeyValue.ofString("g");
  static final int PAGE_SIZE = 7;
  static final int CHANGES = 1_000;
  static final int MIN_READS = 200;

  @Test
  @ExtendWith(RedisExtension.class)
  void aPageStartReadDuringAThousandChangesEqualsTheGroupBeforeOrAfterAChange(RedisServer redis) throws Exception {
    race(redis.uri());
  }

  @Test
  @ExtendWith(RedisClusterExtension.class)
  void onARedisClusterTooThePageStartScriptRunsInTheGroupsSlot(RedisCluster cluster) throws Exception {
    race(cluster.uri());
  }

  /** The scenario of the class comment, under a new prefix of the Redis (or Redis Cluster) at {@code uri}. */
  static void race(String uri) throws Exception {
    String prefix = PREFIX + System.nanoTime() + ":";
    RedisLayout layout = new RedisLayout(prefix);
    RedisAddress address = RedisAddress.parse(uri);
    try (RedisNodes nodes = address.nodes("race")) {
      RedisIndexMeta meta = RedisIndexMeta.schema("events", "byGroup", "PK2", GROUP.type(),
          Records.SCHEMA.storedAttributes()).finished(BuildIds.newId(System.currentTimeMillis() - 60_000),
          System.currentTimeMillis(), 0, 0);
      byte[] key = layout.metaKey();
      nodes.onKey(key, j -> j.hset(key, meta.schemaFields()));
      nodes.onKey(key, j -> j.hset(key, meta.buildFields()));
    }
    RedisSession session = new RedisSession(address, "race",
        RedisBackoff.exponential(Duration.ofSeconds(10)), () -> {});
    try (RedisChangeApplier applier = new RedisChangeApplier(session, layout, Records.SCHEMA, TieOrder.UNKNOWN,
            TimeUnit.HOURS.toMillis(24), System::currentTimeMillis);
        Index index = Indexes.open(uri + "?prefix=" + prefix)) {
      List<IndexChange> seed = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        seed.add(RedisChangeApplierTest.change(GROUP, String.format("i%03d", i), i, null, String.format("s%03d", i)));
      }
      for (int i = 0; i < 30; i++) { // a run of ties longer than the first window, order unknown
        seed.add(RedisChangeApplierTest.change(GROUP, String.format("m%03d", i), 100 + i, null, "m"));
      }
      applier.apply(GROUP, seed);
      Map<String, PageStart> before = pageStarts(index);
      applier.apply(GROUP, List.of(RedisChangeApplierTest.change(GROUP, "x", 200, null, "a")));
      Map<String, PageStart> after = pageStarts(index);
      applier.apply(GROUP, List.of(RedisChangeApplierTest.change(GROUP, "x", 201, "a", null)));
      assertThat("the two states differ on every page start (their counts at least)",
          countDiffering(before, after), is(before.size()));

      Random random = new Random(19);
      List<String> mixed = new ArrayList<>();
      int[] saw = new int[2]; // before, after
      List<String> keys = new ArrayList<>(before.keySet());
      int reads = ReadRace.run(CHANGES, MIN_READS, k -> {
        boolean add = k % 2 == 0;
        applier.apply(GROUP, List.of(RedisChangeApplierTest.change(GROUP, "x", 300 + k,
            add ? null : "a", add ? "a" : null)));
      }, () -> {
        String key = keys.get(random.nextInt(keys.size()));
        PageStart got = read(index, key);
        if (got.equals(before.get(key))) {
          saw[0]++;
        } else if (got.equals(after.get(key))) {
          saw[1]++;
        } else {
          mixed.add(key + ": " + got);
        }
      });
      assertThat(mixed.size() + " of " + reads + " page starts match neither state, the first: "
          + mixed.subList(0, Math.min(3, mixed.size())), mixed.size(), is(0));
      assertThat("reads ran while the changes did", reads, greaterThanOrEqualTo(MIN_READS));
      assertThat("some reads saw the group without the entry", saw[0], greaterThan(0));
      assertThat("some reads saw it with the entry", saw[1], greaterThan(0));
    }
  }

  /** Every page start of both orders, by "ORDER PAGE" (pages that exist in both states only). */
  static Map<String, PageStart> pageStarts(Index index) throws Exception {
    Map<String, PageStart> starts = new HashMap<>();
    try (GroupPages g = index.group(GROUP)) {
      for (Order order : Order.values()) {
        for (long page = 1; page <= 90 / PAGE_SIZE; page++) {
          starts.put(order + " " + page, g.pageStart(page, PAGE_SIZE, order));
        }
      }
    }
    return starts;
  }

  static PageStart read(Index index, String key) throws Exception {
    String[] parts = key.split(" ");
    try (GroupPages g = index.group(GROUP)) {
      return g.pageStart(Long.parseLong(parts[1]), PAGE_SIZE, Order.valueOf(parts[0]));
    }
  }

  static int countDiffering(Map<String, PageStart> a, Map<String, PageStart> b) {
    int n = 0;
    for (String k : a.keySet()) {
      n += a.get(k).equals(b.get(k)) ? 0 : 1;
    }
    return n;
  }
}
