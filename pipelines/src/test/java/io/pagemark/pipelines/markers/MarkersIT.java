package io.pagemark.pipelines.markers;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.pipelines.BackfillIT;
import io.pagemark.commit.markers.GroupMarkers;
import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageOutOfRangeException;
import io.pagemark.lookup.PageReader;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.resp.RespClients;
import io.pagemark.server.resp.RespServer;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.Tuple;
import redis.clients.jedis.util.SafeEncoder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Page markers inside DynamoDB against DynamoDB Local: every page of every group of the tricky table, in both orders,
 * read through {@code dynamodb://TABLE/MARKER_INDEX}, equals DynamoDB's own cursor walk; a second build writes
 * nothing; an item a user changes while its group is placed keeps the user's change and lands where DynamoDB puts it;
 * {@code pagemark resp} serves the markers to a Redis client (Jedis) in both of DynamoDB's orders and refuses writes;
 * {@code markers remove} takes every marker off.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class MarkersIT {
  static final String TABLE = "markersTricky";
  @TempDir static Path dir;
  DynamoDbLocal local;
  DynamoDbClient client;
  List<Map<String, AttributeValue>> items;

  @BeforeAll
  void createTable(DynamoDbLocal local) throws Exception {
    this.local = local;
    client = local.client();
    TrickyTable.create(client, TABLE);
    items = TrickyTable.items(11);
    SampleComments.load(client, TABLE, items, 2, null);
  }

  @AfterAll
  void close() {
    client.close();
  }

  BackfillIT.Result build(String table, String gsi, int pageSize, String markerAttribute) {
    return BackfillIT.cli("markers", "build", "--table=" + table, "--gsi=" + gsi, "--pageSize=" + pageSize,
        "--markerAttribute=" + markerAttribute, "--createIndex", "--segments=2", "--progressSeconds=0",
        "--dynamoEndpoint=" + local.endpoint(), "--deadLetterOutput=" + dir.resolve("dead"));
  }

  private final Map<String, BackfillIT.Result> builds = new HashMap<>();

  /** The tricky table's markers of a GSI, built on first use (no test changes that table's items). */
  BackfillIT.Result built(String gsi, int pageSize, String markerAttribute) {
    return builds.computeIfAbsent(gsi, g -> build(TABLE, g, pageSize, markerAttribute));
  }

  String spec(String table, String gsi) {
    return "dynamodb://" + table + "/" + gsi + "-markers?endpoint=" + local.endpoint();
  }

  /** The items of a table as a map from primary key to item, to compare before and after. */
  Map<String, Map<String, AttributeValue>> snapshot(String table) {
    Map<String, Map<String, AttributeValue>> m = new HashMap<>();
    client.scanPaginator(b -> b.tableName(table)).items()
        .forEach(it -> m.put(it.get("PK").s() + "|" + it.get("SK").s(), it));
    return m;
  }

  @ParameterizedTest(name = "{0}: pages of {2}")
  @CsvSource({"byString,SK,23,pm_s", "byNumber,NUM,11,pm_n"})
  void everyPageOfEveryGroupInBothOrdersIsTheCursorWalksPage(
      String gsi, String sortAttribute, int pageSize, String markerAttribute) throws Exception {
    BackfillIT.Result r = built(gsi, pageSize, markerAttribute);
    assertThat(r.err(), r.code(), is(0));
    assertThat(r.out(), containsString("conflicting writes left"));
    try (Index index = Indexes.open(spec(TABLE, gsi))) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, gsi, index);
      Map<String, Integer> counts = TrickyTable.expectedCounts(items, sortAttribute);
      assertThat(index.groups().size(), is(counts.size()));
      for (String group : counts.keySet()) {
        for (Order order : Order.values()) {
          List<List<Map<String, AttributeValue>>> walk =
              PageWalk.pages(client, TABLE, gsi, group, pageSize, order == Order.ASC);
          for (int n = 1; n <= walk.size(); n++) {
            ItemPage<Map<String, AttributeValue>> page = reader.read(group, n, pageSize, order);
            String what = gsi + " group " + group + " page " + n + " " + order;
            assertThat(what, PageWalk.keys(page.items()), equalTo(PageWalk.keys(walk.get(n - 1))));
            assertThat(what, page.pages(), is((long) walk.size()));
          }
          assertThrows(PageOutOfRangeException.class, () -> reader.read(group, walk.size() + 1, pageSize, order));
        }
      }
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> reader.read("ties", 1, pageSize + 1, Order.ASC));
      assertThat(e.getMessage(), containsString("pages of " + pageSize + " only"));
    }

  }

  @ParameterizedTest(name = "{0}: resp over pages of {2}")
  @CsvSource({"byString,SK,23,pm_s", "byNumber,NUM,11,pm_n"})
  void respServesEveryGroupInDynamoDbsOrdersAndRefusesWrites(
      String gsi, String sortAttribute, int pageSize, String markerAttribute) throws Exception {
    BackfillIT.Result r = built(gsi, pageSize, markerAttribute);
    assertThat(r.err(), r.code(), is(0));
    Map<String, Integer> counts = TrickyTable.expectedCounts(items, sortAttribute);
    try (RespServer server = RespServer.start(RespServer.Options.of(spec(TABLE, gsi)).withPort(0).withThreads(1));
        Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      assertThat(jedis.dbSize(), is((long) counts.size()));
      for (Map.Entry<String, Integer> g : counts.entrySet()) {
        String group = g.getKey();
        byte[] key = group.getBytes(StandardCharsets.UTF_8);
        assertThat(group, jedis.zcard(key), is((long) g.getValue()));
        List<Map<String, AttributeValue>> up = all(PageWalk.pages(client, TABLE, gsi, group, 1000, true));
        List<Map<String, AttributeValue>> down = all(PageWalk.pages(client, TABLE, gsi, group, 1000, false));
        List<String> ascending = PageWalk.keys(up);
        // Every member in both orders, each scored with its ascending rank, is DynamoDB's order.
        List<Tuple> asc = jedis.zrangeWithScores(key, 0, -1);
        List<Tuple> desc = jedis.zrevrangeWithScores(key, 0, -1);
        assertThat(group, keys(asc), equalTo(ascending));
        assertThat(group, keys(desc), equalTo(PageWalk.keys(down)));
        for (int i = 0; i < desc.size(); i++) {
          assertThat(group + " ascending rank of descending " + i, (int) asc.get(i).getScore(), is(i));
          assertThat(group + " score of descending " + i, (int) desc.get(i).getScore(),
              is(ascending.indexOf(keys(List.of(desc.get(i))).get(0))));
        }
        // ZRANK, ZREVRANK and ZSCORE of members across the group, runs of equal sort keys included.
        for (int i = 0; i < asc.size(); i += 17) {
          byte[] member = asc.get(i).getBinaryElement();
          assertThat(group + " ZRANK " + i, jedis.zrank(key, member), is((long) i));
          assertThat(group + " ZSCORE " + i, jedis.zscore(key, member), is((double) i));
          long d = jedis.zrevrank(key, member);
          assertThat(group + " ZREVRANK " + i, keys(List.of(desc.get((int) d))).get(0), equalTo(ascending.get(i)));
        }
        // The page start through ZRANGE/ZREVRANGE r r, then one Query: DynamoDB's page.
        for (Order order : Order.values()) {
          List<List<Map<String, AttributeValue>>> walk =
              PageWalk.pages(client, TABLE, gsi, group, pageSize, order == Order.ASC);
          for (int n = 2; n <= walk.size(); n++) {
            long rank = (long) (n - 1) * pageSize - 1;
            List<byte[]> m = order == Order.ASC ? jedis.zrange(key, rank, rank) : jedis.zrevrange(key, rank, rank);
            PageStart start = new PageStart(KeyValue.ofString(group), n, pageSize, order, g.getValue(),
                walk.size(), RespClients.startKey(new String(m.get(0), StandardCharsets.UTF_8)), 0);
            assertThat(gsi + " " + group + " page " + n + " " + order,
                PageWalk.keys(PageWalk.fromStart(client, TABLE, gsi, start)), equalTo(PageWalk.keys(walk.get(n - 1))));
          }
        }
      }
      assertThat(jedis.zcard("no such group"), is(0L));
      byte[] member = jedis.zrange("utf".getBytes(StandardCharsets.UTF_8), 0, 0).get(0);
      JedisDataException refused = assertThrows(JedisDataException.class,
          () -> jedis.zadd("utf".getBytes(StandardCharsets.UTF_8), 1, member));
      assertThat(refused.getMessage(), allOf(containsString("dynamodb://" + TABLE + "/" + gsi + "-markers"),
          containsString("cannot take ZADD, ZREM or PM.COMMIT")));
      assertThrows(JedisDataException.class, () -> jedis.sendCommand(() -> SafeEncoder.encode("PM.COMMIT")));
      assertThat("the server keeps serving", jedis.zcard("utf"), is((long) counts.get("utf")));
    }
  }

  private static List<Map<String, AttributeValue>> all(List<List<Map<String, AttributeValue>>> pages) {
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    pages.forEach(items::addAll);
    return items;
  }

  /** Members as the walk's keys ({@code PK|SK}). */
  private static List<String> keys(List<Tuple> members) throws IOException {
    List<String> keys = new ArrayList<>();
    for (Tuple t : members) {
      Map<String, KeyValue> k = RespClients.startKey(t.getElement());
      keys.add(k.get("PK").text() + "|" + k.get("SK").text());
    }
    return keys;
  }

  @Test
  void aSecondBuildWritesNothing() throws Exception {
    String table = "markersTwice";
    TrickyTable.create(client, table);
    List<Map<String, AttributeValue>> few = new ArrayList<>();
    for (Map<String, AttributeValue> it : TrickyTable.items(13)) {
      if (it.containsKey("PK2") && List.of("ties", "utf", "../x").contains(it.get("PK2").s())) {
        few.add(it); // equal sort keys in all three types, UTF-8 order, a hostile group key
      }
    }
    SampleComments.load(client, table, few, 2, null);
    BackfillIT.Result first = build(table, "byNumber", 11, "pm_n");
    assertThat(first.err(), first.code(), is(0));
    Map<String, Map<String, AttributeValue>> before = snapshot(table);
    BackfillIT.Result again = build(table, "byNumber", 11, "pm_n");
    assertThat(again.err(), again.code(), is(0));
    assertThat(again.out(), containsString(" 0 markers written, 0 taken off"));
    assertThat("a second build changes no item", snapshot(table), equalTo(before));
  }

  @Test
  void theCliReadsPagesThroughTheMarkersAndRefusesAnotherPageSize() {
    BackfillIT.Result r = built("byString", 23, "pm_s");
    assertThat(r.err(), r.code(), is(0));
    BackfillIT.Result page = BackfillIT.cli("page", "--table=" + TABLE, "--gsi=byString", "--index=" + spec(TABLE, "byString"),
        "--group=utf", "--page=3", "--pageSize=23", "--order=desc", "--dynamoEndpoint=" + local.endpoint());
    assertThat(page.err(), page.code(), is(0));
    List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(client, TABLE, "byString", "utf", 23, false);
    assertThat(page.out(), containsString(walk.get(2).get(0).get("PK").s()));
    BackfillIT.Result other = BackfillIT.cli("lookup", "--index=" + spec(TABLE, "byString"), "--group=utf", "--page=1",
        "--pageSize=8");
    assertThat(other.err(), other.code(), is(2));
    assertThat(other.err(), containsString("pages of 23 only"));
  }

  @Test
  void aUsersChangeWhileAGroupIsPlacedIsKeptAndTheItemLandsWhereDynamoDbPutsIt() throws Exception {
    String table = "markersRace";
    TrickyTable.create(client, table);
    List<Map<String, AttributeValue>> race = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      race.add(new HashMap<>(Map.of("PK", AttributeValue.fromS(String.format("r%03d", i)),
          "SK", AttributeValue.fromS("x"), "PK2", AttributeValue.fromS("g"),
          "NUM", AttributeValue.fromN(Integer.toString(i % 20)))));
    }
    SampleComments.load(client, table, race, 1, null);
    KeySchema schema = KeySchema.describe(client, table, "byNumber");
    MarkerSpec where = new MarkerSpec(table, "byNumber-markers", null, local.connection());
    MarkerConfig config = MarkerTables.prepare(client, where, schema, "pm_page", 7, true, "race-build");
    // The order as a build computed it from its scan, before the user's change.
    List<IndexRecord> scanned = records(schema, table);

    // The user moves the item that ends page 1 to the far end and writes an attribute of their own.
    Map<String, AttributeValue> moved = primaryKey(PageWalk.pages(client, table, "byNumber", "g", 7, true).get(0)
        .get(6));
    client.updateItem(b -> b.tableName(table).key(moved).updateExpression("SET NUM = :n, note = :note")
        .expressionAttributeValues(Map.of(":n", AttributeValue.fromN("1000"), ":note", AttributeValue.fromS("mine"))));

    GroupMarkers.Outcome o = new GroupMarkers(client, config, where.statsTable())
        .write(KeyValue.ofString("g"), scanned);
    assertThat("the group was read again", o.rereads(), greaterThan(0));
    assertThat(o.conflicts(), is(0L));
    Map<String, AttributeValue> now = client.getItem(b -> b.tableName(table).key(moved)).item();
    assertThat(now.get("NUM").n(), is("1000"));
    assertThat(now.get("note").s(), is("mine"));
    assertThat("the moved item ends no page now", now.containsKey("pm_page"), is(false));

    try (Index index = Indexes.open(where + "?endpoint=" + local.endpoint())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, table, "byNumber", index);
      for (Order order : Order.values()) {
        List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(client, table, "byNumber", "g", 7,
            order == Order.ASC);
        for (int n = 1; n <= walk.size(); n++) {
          assertThat("page " + n + " " + order, PageWalk.keys(reader.read("g", n, 7, order).items()),
              equalTo(PageWalk.keys(walk.get(n - 1))));
        }
      }
    }

    BackfillIT.Result removed = BackfillIT.cli("markers", "remove", "--index=" + where + "?endpoint=" + local.endpoint());
    assertThat(removed.err(), removed.code(), is(0));
    assertThat(removed.out(), containsString("5 markers taken off"));
    assertThat(client.scanPaginator(b -> b.tableName(table)).items().stream()
        .filter(it -> it.containsKey("pm_page") || it.containsKey("pm_page_tie")).count(), is(0L));
    IOException gone = assertThrows(IOException.class, () -> Indexes.open(where + "?endpoint=" + local.endpoint()));
    assertThat(gone.getMessage(), containsString("markers build"));
  }

  /** The group's records as the build's order gives them: the walk, each run's DynamoDB order included. */
  private List<IndexRecord> records(KeySchema schema, String table) {
    List<Map<String, AttributeValue>> asc = new ArrayList<>();
    PageWalk.pages(client, table, "byNumber", "g", 1000, true).forEach(asc::addAll);
    List<Map<String, AttributeValue>> desc = new ArrayList<>();
    PageWalk.pages(client, table, "byNumber", "g", 1000, false).forEach(desc::addAll);
    List<IndexRecord> records = new ArrayList<>();
    int i = 0;
    while (i < asc.size()) {
      int j = i;
      while (j < asc.size() && asc.get(j).get("NUM").n().equals(asc.get(i).get("NUM").n())) {
        j++;
      }
      int n = j - i;
      List<Map<String, AttributeValue>> run = asc.subList(i, j);
      String value = asc.get(i).get("NUM").n();
      List<Map<String, AttributeValue>> runDesc =
          desc.stream().filter(it -> it.get("NUM").n().equals(value)).toList();
      for (int k = 0; k < n; k++) {
        int slot = run.indexOf(runDesc.get(k));
        records.add(new IndexRecord(k, n, true, slot, keys(schema, run.get(k))));
      }
      i = j;
    }
    return records;
  }

  private static List<KeyValue> keys(KeySchema schema, Map<String, AttributeValue> item) {
    return ItemKeys.extract(schema, item).entry().keys();
  }

  private static Map<String, AttributeValue> primaryKey(Map<String, AttributeValue> item) {
    return Map.of("PK", item.get("PK"), "SK", item.get("SK"));
  }

}
