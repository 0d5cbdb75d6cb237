package io.pagemark.pipelines;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;

import static io.pagemark.pipelines.BackfillIT.backfill;
import static io.pagemark.pipelines.BackfillIT.cli;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageOutOfRangeException;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.BackfillIT.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbEnhancedClient;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.TableSchema;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticAttributeTags;
import software.amazon.awssdk.enhanced.dynamodb.mapper.StaticTableSchema;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Pages as DynamoDB items against DynamoDB Local: every page of the tricky table through the index equals DynamoDB's
 * own cursor walk, in both orders; deletions since the build still give full pages and a stale flag; fresh first
 * pages show items written since the build; the {@code page} CLI's output and exit codes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class PageReaderIT {
  static final String TABLE = "pagesTricky";
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

  private final Map<String, Path> builds = new java.util.HashMap<>();

  /** An index of a table's GSI, built on first use (the tests that build one change no item of that table). */
  private Path build(String table, String gsi) {
    return builds.computeIfAbsent(table + "/" + gsi, k -> newBuild(table, gsi));
  }

  private Path newBuild(String table, String gsi) {
    Path out = dir.resolve(table + "-" + gsi + "-" + System.nanoTime());
    Result r = backfill(local, "--table=" + table, "--gsi=" + gsi, "--output=" + out);
    assertThat(r.err(), r.code(), is(0));
    return out;
  }

  @ParameterizedTest(name = "{0}: pages of {2}")
  @CsvSource({"byString,SK,7", "byNumber,NUM,7", "byBinary,BIN,3"})
  void everyPageOfEveryGroupInBothOrdersIsTheCursorWalksPage(String gsi, String sortAttribute, int pageSize)
      throws Exception {
    Path out = build(TABLE, gsi);
    try (Index index = Indexes.open(out.toString())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, gsi, index);
      int pagesRead = 0;
      for (String group : TrickyTable.expectedCounts(items, sortAttribute).keySet()) {
        for (Order order : Order.values()) {
          List<List<Map<String, AttributeValue>>> walk =
              PageWalk.pages(client, TABLE, gsi, group, pageSize, order == Order.ASC);
          for (int n = 1; n <= walk.size(); n++) {
            ItemPage<Map<String, AttributeValue>> page = reader.read(group, n, pageSize, order);
            String what = gsi + " group " + group + " page " + n + " " + order;
            assertThat(what, PageWalk.keys(page.items()), equalTo(PageWalk.keys(walk.get(n - 1))));
            assertThat(what, page.items(), equalTo(walk.get(n - 1)));
            assertThat(what, page.pages(), is((long) walk.size()));
            assertThat(what, page.stale(), is(false));
            assertThat(what, page.requests(), is(1));
            pagesRead++;
          }
          assertThrows(PageOutOfRangeException.class, () -> reader.read(group, walk.size() + 1, pageSize, order));
        }
      }
      assertThat(reader.metrics().pages(), is((long) pagesRead));
      assertThat(reader.metrics().stalePages(), is(0L));
      assertThat(reader.metrics().queryRequests(), is((long) pagesRead));
      assertThat(reader.metrics().consumedReadCapacity(), greaterThan(0.0));
      assertThrows(GroupNotFoundException.class, () -> reader.read("no such group", 1, pageSize, Order.ASC));
    }
  }

  @Test
  void aPageOverOneMegabyteKeepsQueryingUntilItIsFull() throws Exception {
    int size = 150; // items of ~8 KB: DynamoDB stops each read at 1 MB, about 125 of them
    try (Index index = Indexes.open(build(TABLE, "byString").toString())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, "byString", index);
      for (Order order : Order.values()) {
        List<List<Map<String, AttributeValue>>> walk =
            PageWalk.pages(client, TABLE, "byString", "big", size, order == Order.ASC);
        for (int n = 1; n <= walk.size(); n++) {
          ItemPage<Map<String, AttributeValue>> page = reader.read("big", n, size, order);
          assertThat("big page " + n + " " + order, PageWalk.keys(page.items()),
              equalTo(PageWalk.keys(walk.get(n - 1))));
          assertThat(page.stale(), is(false));
          if (page.items().size() == size) {
            assertThat("a full page of 150 big items needs a second Query", page.requests(), is(2));
          }
        }
      }
    }
  }

  /** A row of the tricky table for the Enhanced Client. */
  public static final class Row {
    private String pk;
    private String sk;
    private String group;

    String key() {
      return pk + "|" + sk;
    }
  }

  static final TableSchema<Row> ROW =
      StaticTableSchema.builder(Row.class)
          .newItemSupplier(Row::new)
          .addAttribute(String.class, a -> a.name("PK").getter(r -> r.pk).setter((r, v) -> r.pk = v)
              .tags(StaticAttributeTags.primaryPartitionKey()))
          .addAttribute(String.class, a -> a.name("SK").getter(r -> r.sk).setter((r, v) -> r.sk = v)
              .tags(StaticAttributeTags.primarySortKey(), StaticAttributeTags.secondarySortKey("byString")))
          .addAttribute(String.class, a -> a.name("PK2").getter(r -> r.group).setter((r, v) -> r.group = v)
              .tags(StaticAttributeTags.secondaryPartitionKey("byString")))
          .build();

  @Test
  void theEnhancedClientGetsItsItemsMappedWithTheTableSchema() throws Exception {
    Path out = build(TABLE, "byString");
    DynamoDbTable<Row> table = DynamoDbEnhancedClient.builder().dynamoDbClient(client).build().table(TABLE, ROW);
    try (Index index = Indexes.open(out.toString())) {
      PageReader<Row> reader = PageReader.of(client, table.index("byString"), index);
      for (String group : List.of("ties", "utf")) {
        List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(client, TABLE, "byString", group, 9, false);
        for (int n = 1; n <= walk.size(); n++) {
          ItemPage<Row> page = reader.read(group, n, 9, Order.DESC);
          List<String> keys = page.items().stream().map(Row::key).collect(Collectors.toList());
          assertThat(group + " page " + n, keys, equalTo(PageWalk.keys(walk.get(n - 1))));
          assertThat(page.items().get(0).group, equalTo(group));
        }
      }
    }
  }

  @Test
  void itemsDeletedSinceTheBuildStillGiveFullPagesAndAStaleFlag() throws Exception {
    String table = "pagesDeleted";
    TrickyTable.create(client, table);
    List<Map<String, AttributeValue>> loaded = new ArrayList<>();
    for (Map<String, AttributeValue> it : TrickyTable.items(13)) {
      if (it.containsKey("PK2") && List.of("ties", "utf").contains(it.get("PK2").s())) {
        loaded.add(it);
      }
    }
    SampleComments.load(client, table, loaded, 2, null);
    Path out = build(table, "byString");
    int size = 10;
    // The groups in DynamoDB's order as of the build, one list of keys per order.
    Map<String, List<String>> before = new java.util.HashMap<>();
    for (String group : List.of("ties", "utf")) {
      for (Order order : Order.values()) {
        before.put(group + order, flatten(PageWalk.pages(client, table, "byString", group, size, order == Order.ASC)));
      }
    }
    List<String> ties = before.get("ties" + Order.ASC);
    List<String> tiesDesc = before.get("ties" + Order.DESC);
    List<String> utf = before.get("utf" + Order.ASC);
    // First items, the exclusive start keys of page 2 and 3 in both orders, a run of three, the last item.
    Set<String> deleted = new HashSet<>(List.of(ties.get(0), ties.get(size - 1), ties.get(2 * size - 1),
        tiesDesc.get(size - 1), tiesDesc.get(2 * size - 1), ties.get(137), ties.get(138), ties.get(139),
        ties.get(ties.size() - 1), utf.get(5), utf.get(utf.size() - 1)));
    for (String key : deleted) {
      String[] pkSk = key.split("\\|", 2);
      client.deleteItem(b -> b.tableName(table)
          .key(Map.of("PK", AttributeValue.fromS(pkSk[0]), "SK", AttributeValue.fromS(pkSk[1]))));
    }

    try (Index index = Indexes.open(out.toString())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, table, "byString", index);
      int stalePages = 0;
      int intactPages = 0;
      for (String group : List.of("ties", "utf")) {
        for (Order order : Order.values()) {
          List<String> built = before.get(group + order);
          long pages = (built.size() + size - 1) / size;
          for (int n = 1; n <= pages; n++) {
            int first = (n - 1) * size;
            List<String> window = built.subList(first, Math.min(built.size(), first + size));
            // What follows the build's item before the page, less what was deleted: S items unless the group ends.
            List<String> expected = built.subList(first, built.size()).stream().filter(k -> !deleted.contains(k))
                .limit(size).collect(Collectors.toList());
            boolean windowLostAnItem = window.stream().anyMatch(deleted::contains);
            ItemPage<Map<String, AttributeValue>> page = reader.read(group, n, size, order);
            String what = group + " page " + n + " " + order;
            assertThat(what, PageWalk.keys(page.items()), equalTo(expected));
            assertThat(what, page.stale(), is(windowLostAnItem));
            assertThat(what, page.count(), is((long) built.size()));
            if (windowLostAnItem) {
              stalePages++;
              assertThat(what, page.staleReason(), containsString("in the build but"));
            } else {
              intactPages++;
            }
          }
        }
      }
      assertThat(stalePages, greaterThan(4));
      assertThat(intactPages, greaterThan(4));
      assertThat(reader.metrics().stalePages(), is((long) stalePages));
      // Page 2 ascending starts after an item that no longer exists: DynamoDB still accepts its key.
      ItemPage<Map<String, AttributeValue>> p2 = reader.read("ties", 2, size, Order.ASC);
      assertThat(p2.items().size(), is(size));
      assertThat(p2.requests(), is(1));
      assertThat(PageWalk.keys(p2.items()).get(0), equalTo(ties.get(size)));
    }
  }

  private static List<String> flatten(List<List<Map<String, AttributeValue>>> pages) {
    List<String> keys = new ArrayList<>();
    pages.forEach(p -> keys.addAll(PageWalk.keys(p)));
    return keys;
  }

  @Test
  void freshFirstPagesShowAnItemWrittenAfterTheBuild() throws Exception {
    String table = "pagesFresh";
    TrickyTable.create(client, table);
    List<Map<String, AttributeValue>> loaded = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      loaded.add(Map.of("PK", AttributeValue.fromS(String.format("c%03d", i)),
          "SK", AttributeValue.fromS(String.format("2024-01-01T00:%02d:00Z", i)), "PK2", AttributeValue.fromS("p")));
    }
    SampleComments.load(client, table, loaded, 2, null);
    Path out = build(table, "byString");
    List<String> built = flatten(PageWalk.pages(client, table, "byString", "p", 10, false));
    client.putItem(b -> b.tableName(table).item(Map.of("PK", AttributeValue.fromS("new"),
        "SK", AttributeValue.fromS("2026-11-22T00:00:00Z"), "PK2", AttributeValue.fromS("p"))));
    String newest = "new|2026-11-22T00:00:00Z";

    try (Index index = Indexes.open(out.toString())) {
      PageReader<Map<String, AttributeValue>> fromIndex = PageReader.of(client, table, "byString", index);
      PageReader<Map<String, AttributeValue>> fresh = fromIndex.withFreshPages(2);

      ItemPage<Map<String, AttributeValue>> p1 = fresh.read("p", 1, 10, Order.DESC);
      assertThat(p1.fresh(), is(true));
      assertThat(p1.stale(), is(false));
      assertThat(PageWalk.keys(p1.items()).get(0), equalTo(newest));
      assertThat(PageWalk.keys(p1.items()).subList(1, 10), equalTo(built.subList(0, 9)));
      ItemPage<Map<String, AttributeValue>> p2 = fresh.read("p", 2, 10, Order.DESC);
      assertThat(p2.fresh(), is(true));
      assertThat(p2.requests(), is(1));
      assertThat(PageWalk.keys(p2.items()), equalTo(built.subList(9, 19)));
      // Page 3 comes from the index as of the build: the item pushed off page 2 shows on neither (see docs/pages.md).
      ItemPage<Map<String, AttributeValue>> p3 = fresh.read("p", 3, 10, Order.DESC);
      assertThat(p3.fresh(), is(false));
      assertThat(PageWalk.keys(p3.items()), equalTo(built.subList(20, 30)));
      assertThat(fresh.metrics().freshPages(), is(2L));

      // Without fresh pages, page 1 comes from the index: the new item shows, and the page says it is stale.
      ItemPage<Map<String, AttributeValue>> indexed = fromIndex.read("p", 1, 10, Order.DESC);
      assertThat(indexed.fresh(), is(false));
      assertThat(indexed.stale(), is(true));
      assertThat(indexed.staleReason(), containsString("\"new\""));
      // Ascending, the new item is last: page 1 is unchanged.
      ItemPage<Map<String, AttributeValue>> asc = fresh.read("p", 1, 10, Order.ASC);
      assertThat(PageWalk.keys(asc.items()), not(org.hamcrest.Matchers.hasItem(newest)));
      assertThat(asc.items().size(), is(10));
    }
  }

  @Test
  void anIndexOnTheTablesOwnKeysIsPagedOnTheTableItselfByTheLibraryAndTheCli() throws Exception {
    String table = "pagesOwnKeys";
    TrickyTable.create(client, table);
    List<Map<String, AttributeValue>> loaded = new ArrayList<>();
    List<String> ascending = new ArrayList<>();
    for (int i = 0; i < 45; i++) {
      String sk = String.format("2024-01-01T00:%02d:00Z", i);
      loaded.add(Map.of("PK", AttributeValue.fromS("p"), "SK", AttributeValue.fromS(sk)));
      ascending.add("p|" + sk); // unique ASCII sort keys: DynamoDB's order is theirs
    }
    SampleComments.load(client, table, loaded, 2, null);
    Path out = dir.resolve("own-keys");
    Result built = backfill(local, "--table=" + table, "--groupAttribute=PK", "--sortAttribute=SK", "--output=" + out);
    assertThat(built.err(), built.code(), is(0));
    List<String> descending = new ArrayList<>(ascending);
    java.util.Collections.reverse(descending);

    try (Index index = Indexes.open(out.toString())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, table, index);
      ItemPage<Map<String, AttributeValue>> page = reader.read("p", 2, 20, Order.DESC);
      assertThat(PageWalk.keys(page.items()), equalTo(descending.subList(20, 40)));
      assertThat(page.stale(), is(false));
      assertThat(PageWalk.keys(reader.read("p", 3, 20, Order.ASC).items()), equalTo(ascending.subList(40, 45)));
    }
    Result cli = cli("page", "--table=" + table, "--index=" + out, "--dynamoEndpoint=" + local.endpoint(),
        "--group=p", "--page=3", "--pageSize=10", "--order=desc");
    assertThat(cli.err(), cli.code(), is(0));
    List<String> keys = new ArrayList<>();
    for (JsonNode item : new ObjectMapper().readTree(cli.out()).get("items")) {
      keys.add(item.get("PK").get("S").asText() + "|" + item.get("SK").get("S").asText());
    }
    assertThat(keys, equalTo(descending.subList(20, 30)));
  }

  @Test
  void pageCliPrintsItemsAndCostAndUsesTheExitCodes() throws Exception {
    Path out = build(TABLE, "byString");
    String index = "--index=" + out;
    String endpoint = "--dynamoEndpoint=" + local.endpoint();
    String[] common = {"page", "--table=" + TABLE, "--gsi=byString", index, endpoint};
    int ties = TrickyTable.expectedCounts(items, "SK").get("ties");
    long pages = (ties + 19) / 20;
    List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(client, TABLE, "byString", "ties", 20, false);

    Result ok = page(common, "--group=ties", "--page=3", "--pageSize=20", "--order=desc");
    assertThat(ok.err(), ok.code(), is(0));
    JsonNode json = new ObjectMapper().readTree(ok.out());
    assertThat(json.get("group").asText(), equalTo("ties"));
    assertThat(json.get("page").asLong(), is(3L));
    assertThat(json.get("pageSize").asInt(), is(20));
    assertThat(json.get("order").asText(), equalTo("desc"));
    assertThat(json.get("count").asLong(), is((long) ties));
    assertThat(json.get("pages").asLong(), is(pages));
    assertThat(json.get("stale").asBoolean(), is(false));
    try (Index f = Indexes.open(out.toString())) {
      assertThat(json.get("build").asText(), equalTo(f.buildId()));
    }
    List<String> keys = new ArrayList<>();
    for (JsonNode item : json.get("items")) {
      keys.add(item.get("PK").get("S").asText() + "|" + item.get("SK").get("S").asText());
      assertThat(item.get("NUM").get("N").isTextual(), is(true));
      assertThat(item.get("BIN").get("B").isTextual(), is(true));
    }
    assertThat(keys, equalTo(PageWalk.keys(walk.get(2))));
    assertThat(ok.err(), containsString("20 items, 1 Query request, "));
    assertThat(ok.err(), containsString("read capacity units consumed"));

    // The last page, short, and a hostile group key.
    Result last = page(common, "--group=ties", "--page=" + pages, "--pageSize=20");
    assertThat(last.err(), last.code(), is(0));
    assertThat(new ObjectMapper().readTree(last.out()).get("items").size(), is(ties - (int) (pages - 1) * 20));
    Result hostile = page(common, "--group=new\nline", "--page=1", "--pageSize=2");
    assertThat(hostile.err(), hostile.code(), is(0));
    assertThat(new ObjectMapper().readTree(hostile.out()).get("group").asText(), equalTo("new\nline"));

    for (String[] bad : new String[][] {
        {"--page=0", "--pageSize=20"}, {"--page=-1", "--pageSize=20"}, {"--page=x", "--pageSize=20"},
        {"--page=1", "--pageSize=0"}, {"--page=1", "--pageSize=1000001"}, {"--page=1", "--pageSize=ten"},
        {"--page=1", "--pageSize=20", "--order=sideways"}, {"--page=1", "--pageSize=20", "--freshPages=-1"},
        {"--page=1", "--pageSize=20", "--bogus=1"}, {"--page=11", "--pageSize=100000", "--freshPages=20"}}) {
      List<String> args = new ArrayList<>(List.of("--group=ties"));
      args.addAll(List.of(bad));
      Result usage = page(common, args.toArray(String[]::new));
      assertThat(String.join(" ", bad), usage.code(), is(2));
      assertThat(usage.out(), equalTo(""));
      assertThat(usage.err(), containsString("usage: pagemark page"));
    }
    Result zero = page(common, "--group=ties", "--page=0", "--pageSize=20");
    assertThat(zero.err(), containsString("--page must be between 1 and"));
    Result tooBig = page(common, "--group=ties", "--page=1", "--pageSize=1000001");
    assertThat(tooBig.err(), containsString("--pageSize must be between 1 and 1000000, not 1000001"));
    Result missing = cli("page", index, "--group=ties", "--page=1", "--pageSize=20");
    assertThat(missing.code(), is(2));
    assertThat(missing.err(), containsString("missing required option --table"));

    Result past = page(common, "--group=ties", "--page=" + (pages + 1), "--pageSize=20");
    assertThat(past.code(), is(3));
    assertThat(past.out(), equalTo(""));
    assertThat(past.err(), containsString("has " + pages + " pages of 20; page " + (pages + 1) + " is out of range"));
    Result unknown = page(common, "--group=nope", "--page=1", "--pageSize=20");
    assertThat(unknown.code(), is(3));
    assertThat(unknown.err(), containsString("group {\"S\":\"nope\"} is not in build"));

    Result noIndex = cli("page", "--table=" + TABLE, "--gsi=byString", "--index=" + dir.resolve("missing"), endpoint,
        "--group=ties", "--page=1", "--pageSize=20");
    assertThat(noIndex.code(), is(1));
    assertThat(noIndex.err(), containsString("no such index directory"));
    Result noTable = cli("page", "--table=absent", "--gsi=byString", index, endpoint, "--group=ties", "--page=1",
        "--pageSize=20");
    assertThat(noTable.code(), is(1));
    assertThat(noTable.err(), containsString("table absent or its index byString does not exist in DynamoDB at http://127.0.0.1:"));
    Result wrongGsi = cli("page", "--table=" + TABLE, "--gsi=byNumber", index, endpoint, "--group=ties", "--page=2",
        "--pageSize=20");
    assertThat(wrongGsi.code(), is(1));
    assertThat(wrongGsi.err(), containsString("refused the Query"));
    assertThat(wrongGsi.err(), containsString("do --table and --gsi name the table and index"));
  }

  private static Result page(String[] common, String... more) {
    List<String> args = new ArrayList<>(List.of(common));
    args.addAll(List.of(more));
    return cli(args.toArray(String[]::new));
  }

  private static void assertThrows(Class<? extends Throwable> type, Executable call) {
    org.junit.jupiter.api.Assertions.assertThrows(type, call);
  }
}
