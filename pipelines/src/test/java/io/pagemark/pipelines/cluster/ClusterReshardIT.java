package io.pagemark.pipelines.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.redis.RedisLayout;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisCluster;
import io.pagemark.testing.RedisClusterExtension;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.JedisClusterCRC16;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Resharding a real Redis Cluster ({@code redis-cli --cluster reshard ... --cluster-yes}) while the backfill loads
 * an index into it, and again while readers look pages up: the load loses nothing (every page of every group, both
 * orders, is DynamoDB's page) and no lookup fails or answers a wrong page.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, RedisClusterExtension.class})
class ClusterReshardIT {
  static final String TABLE = "reshardCluster";
  static final String GSI = TrickyTable.BY_STRING;
  static final int GROUPS = 240;
  static final int PAGE = 5;
  /** About a quarter of a master's slots: enough to move dozens of the groups, quick enough for a test. */
  static final int SLOTS = 1_500;
  DynamoDbLocal local;
  DynamoDbClient client;
  RedisCluster cluster;
  List<String> groups = new ArrayList<>();

  @BeforeAll
  void setUp(DynamoDbLocal local, RedisCluster cluster) throws Exception {
    this.local = local;
    this.cluster = cluster;
    client = local.client();
    TrickyTable.create(client, TABLE);
    Random r = new Random(5);
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int g = 0; g < GROUPS; g++) {
      String group = String.format("g-%03d", g);
      groups.add(group);
      for (int i = 0; i < 4 + r.nextInt(12); i++) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("PK", AttributeValue.fromS(group + "-item-" + i));
        item.put("PK2", AttributeValue.fromS(group));
        // a few sort keys only, so that groups hold runs of equal sort keys
        item.put("SK", AttributeValue.fromS(TrickyTable.TRICKY_STRINGS.get(r.nextInt(5))));
        items.add(item);
      }
    }
    SampleComments.load(client, TABLE, items, 2, null);
  }

  @AfterAll
  void close() {
    client.close();
  }

  @Test
  void slotsMigratedDuringALoadAndDuringLookupsLoseNothingAndFailNoLookup() throws Exception {
    String prefix = "it:" + TABLE + ":" + System.nanoTime() + ":";
    RedisLayout layout = new RedisLayout(prefix);
    Map<String, Integer> ownerBefore = owners(layout);

    // a load, with slots moving from master 0 to master 1 while it runs
    CompletableFuture<BackfillIT.Result> backfill = CompletableFuture.supplyAsync(() -> BackfillIT.backfill(local,
        "--table=" + TABLE, "--gsi=" + GSI, "--redis=" + cluster.uri(), "--redisKeyPrefix=" + prefix,
        "--redisBatchSize=2", "--maxPartEntries=5"));
    awaitLease(layout, backfill);
    assertThat("the load was running when the reshard began", backfill.isDone(), is(false));
    cluster.reshard(0, 1, SLOTS);
    BackfillIT.Result r = backfill.get();
    assertThat(r.err(), r.code(), is(0));
    Map<String, Integer> ownerAfter = owners(layout);
    assertThat("groups that moved to another master", moved(ownerBefore, ownerAfter), greaterThan(5L));

    String spec = cluster.uri() + "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);
    Map<String, List<List<String>>> expected = new LinkedHashMap<>();
    try (Index index = Indexes.open(spec)) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, GSI, index);
      for (String group : groups) {
        for (Order order : Order.values()) {
          List<List<String>> walk = new ArrayList<>();
          PageWalk.pages(client, TABLE, GSI, group, PAGE, order == Order.ASC).forEach(p -> walk.add(PageWalk.keys(p)));
          for (int n = 1; n <= walk.size(); n++) {
            ItemPage<Map<String, AttributeValue>> page = reader.read(group, n, PAGE, order);
            assertThat(group + " page " + n + " " + order, PageWalk.keys(page.items()), equalTo(walk.get(n - 1)));
          }
          expected.put(group + " " + order, walk);
        }
      }

      // lookups, with the same slots moving back while they run
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong lookups = new AtomicLong();
      List<String> failures = Collections.synchronizedList(new ArrayList<>());
      List<Thread> readers = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        Random random = new Random(t);
        Thread reader2 = new Thread(() -> {
          while (!stop.get()) {
            String group = groups.get(random.nextInt(groups.size()));
            Order order = random.nextBoolean() ? Order.ASC : Order.DESC;
            List<List<String>> walk = expected.get(group + " " + order);
            int n = 1 + random.nextInt(walk.size());
            try {
              List<String> got = PageWalk.keys(reader.read(group, n, PAGE, order).items());
              if (!got.equals(walk.get(n - 1))) {
                failures.add(group + " page " + n + " " + order + ": " + got + " instead of " + walk.get(n - 1));
              }
            } catch (Exception | AssertionError e) {
              failures.add(group + " page " + n + " " + order + ": " + e);
            }
            lookups.incrementAndGet();
          }
        });
        reader2.start();
        readers.add(reader2);
      }
      long before = lookups.get();
      try {
        cluster.reshard(1, 0, SLOTS);
      } finally {
        long during = lookups.get() - before;
        stop.set(true);
        for (Thread t : readers) {
          t.join(60_000);
        }
        assertThat(failures.subList(0, Math.min(5, failures.size())).toString(), failures, empty());
        assertThat("lookups while the slots moved", during, greaterThan(20L));
      }
      assertThat("groups that moved back", moved(ownerAfter, owners(layout)), greaterThan(5L));
    }
  }

  /** Waits until the build's lease exists, i.e. the load has begun (or the backfill ended, which then fails). */
  private void awaitLease(RedisLayout layout, CompletableFuture<?> backfill) throws InterruptedException {
    byte[] pattern = (layout.prefix() + "{index}lease:*").getBytes(StandardCharsets.UTF_8);
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!backfill.isDone() && System.nanoTime() < deadline) {
      for (int i = 0; i < 3; i++) {
        try (Jedis j = cluster.node(i)) {
          if (!j.keys(pattern).isEmpty()) {
            return;
          }
        }
      }
      Thread.sleep(20); // polling a condition with a deadline
    }
  }

  /** The master that owns each group's slot now. */
  private Map<String, Integer> owners(RedisLayout layout) {
    Map<String, Integer> m = new HashMap<>();
    for (String g : groups) {
      byte[] key = layout.liveKey(RedisLayout.groupBytes(KeyValue.ofString(g)));
      m.put(g, cluster.ownerOf(JedisClusterCRC16.getSlot(key)));
    }
    return m;
  }

  private static long moved(Map<String, Integer> before, Map<String, Integer> after) {
    return before.keySet().stream().filter(g -> !before.get(g).equals(after.get(g))).count();
  }
}
