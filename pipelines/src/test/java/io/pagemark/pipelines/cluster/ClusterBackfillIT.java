package io.pagemark.pipelines.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.redis.RedisLayout;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageOutOfRangeException;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.union.UnionWalk;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisCluster;
import io.pagemark.testing.RedisClusterExtension;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The backfill test table loaded into a real 3-master Redis Cluster through {@code --redis=redis-cluster://...}:
 * every page of every group, both orders, read through {@code Indexes.open("redis-cluster://...")}, equals the page
 * DynamoDB's own LastEvaluatedKey walk returns; the CLI answers from the cluster as from the file index of the same
 * load, and exits with 3 for an unknown group or page; the index's groups are spread over all masters.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, RedisClusterExtension.class})
class ClusterBackfillIT {
  static final String TABLE = "trickyCluster";
  DynamoDbLocal local;
  DynamoDbClient client;
  RedisCluster cluster;
  List<Map<String, AttributeValue>> items;

  @BeforeAll
  void setUp(DynamoDbLocal local, RedisCluster cluster) throws Exception {
    this.local = local;
    this.cluster = cluster;
    client = local.client();
    TrickyTable.create(client, TABLE);
    items = TrickyTable.items(21);
    SampleComments.load(client, TABLE, items, 2, null);
  }

  @AfterAll
  void close() {
    client.close();
  }

  @Test
  void everyPageOfEveryGroupInBothOrdersIsDynamoDbsWalk(@TempDir Path dir) throws Exception {
    Set<Integer> mastersHoldingGroups = new HashSet<>();
    // One index (a backfill takes 30-60 s on a loaded 2-core machine): what the cluster changes is where a group's
    // keys live, which depends on its group key, not its sort key type; RedisLookupIT covers numbers and binaries.
    for (String[] gsi : new String[][] {{"byString", "SK", "7"}}) {
      String prefix = "it:" + TABLE + ":" + gsi[0] + ":";
      Path out = dir.resolve(gsi[0]);
      long t0 = System.nanoTime();
      BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + gsi[0], "--output=" + out,
          "--redis=" + cluster.uri(), "--redisKeyPrefix=" + prefix, "--redisBatchSize=50", "--maxPartEntries=60");
      assertThat(r.err(), r.code(), is(0));
      System.err.println("backfill of " + gsi[0] + " into the cluster took " + (System.nanoTime() - t0) / 1_000_000 + " ms");
      String spec = cluster.uri() + "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);
      int pageSize = Integer.parseInt(gsi[2]);
      int pagesRead = 0;
      try (Index index = Indexes.open(spec)) {
        PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, gsi[0], index);
        Map<String, Integer> counts = TrickyTable.expectedCounts(items, gsi[1]);
        assertThat(index.groups().size(), is(counts.size()));
        for (String group : counts.keySet()) {
          mastersHoldingGroups.add(ownerOfGroup(prefix, group));
          for (Order order : Order.values()) {
            List<List<Map<String, AttributeValue>>> walk =
                PageWalk.pages(client, TABLE, gsi[0], group, pageSize, order == Order.ASC);
            for (int n = 1; n <= walk.size(); n++) {
              ItemPage<Map<String, AttributeValue>> page = reader.read(group, n, pageSize, order);
              String what = gsi[0] + " group " + group + " page " + n + " " + order;
              assertThat(what, PageWalk.keys(page.items()), equalTo(PageWalk.keys(walk.get(n - 1))));
              assertThat(what, page.items(), equalTo(walk.get(n - 1)));
              assertThat(what, page.pages(), is((long) walk.size()));
              pagesRead++;
            }
            assertThrows(PageOutOfRangeException.class, () -> reader.read(group, walk.size() + 1, pageSize, order));
          }
        }
        // a union of groups on masters of their own, walked by cursor (issue 15: unions on every backend)
        pagesRead += UnionWalk.assertEveryPage(client, TABLE, gsi[0], gsi[1], io.pagemark.key.KeyType.S, index,
            List.of("ties", "utf", TrickyTable.HOSTILE_GROUPS.get(0)), pageSize);
      }
      assertThat(pagesRead, greaterThan(100));
      // the CLI, given the cluster, prints what it prints from the file index of the same load
      for (String group : List.of("big", "ties", "../x", "nul\u0000byte")) {
        BackfillIT.Result fromFiles = BackfillIT.cli("lookup", "--index=" + out, "--group=" + group,
            "--page=1,2,3", "--pageSize=" + pageSize, "--order=desc");
        BackfillIT.Result fromCluster = BackfillIT.cli("lookup", "--index=" + spec, "--group=" + group,
            "--page=1,2,3", "--pageSize=" + pageSize, "--order=desc");
        assertThat(fromCluster.err(), fromCluster.code(), is(fromFiles.code()));
        assertThat(group, fromCluster.out(), equalTo(fromFiles.out()));
      }
    }
    assertThat("groups spread over the masters", mastersHoldingGroups.size(), is(3));
    exitCodes("it:" + TABLE + ":byString:");
    for (int i = 0; i < 3; i++) {
      try (Jedis j = cluster.node(i)) {
        assertThat("no temporary set left on master " + i,
            j.keys(new RedisLayout("it:" + TABLE + ":byString:").tempKeyPattern()), empty());
      }
    }
  }

  /** An unknown group and a page out of range exit with 3, an unreachable cluster with 1, naming it. */
  private void exitCodes(String prefix) {
    String spec = cluster.uri() + "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);
    BackfillIT.Result none = BackfillIT.cli("lookup", "--index=" + spec, "--group=no such group", "--page=1",
        "--pageSize=5");
    assertThat(none.err(), none.code(), is(3));
    BackfillIT.Result far = BackfillIT.cli("lookup", "--index=" + spec, "--group=big", "--page=999",
        "--pageSize=5");
    assertThat(far.err(), far.code(), is(3));
    BackfillIT.Result nobody = BackfillIT.cli("lookup", "--index=redis-cluster://127.0.0.1:1", "--group=big",
        "--page=1", "--pageSize=5");
    assertThat(nobody.err(), nobody.code(), is(1));
    assertThat(nobody.err(), containsString("redis-cluster://127.0.0.1:1"));
  }

  private int ownerOfGroup(String prefix, String group) {
    byte[] key = new RedisLayout(prefix).liveKey(RedisLayout.groupBytes(KeyValue.ofString(group)));
    return cluster.ownerOf(redis.clients.jedis.util.JedisClusterCRC16.getSlot(key));
  }
}
