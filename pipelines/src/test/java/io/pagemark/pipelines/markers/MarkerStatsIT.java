package io.pagemark.pipelines.markers;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.pipelines.BackfillIT;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.commit.markers.MarkerChanges;
import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.format.markers.StatsItems;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.io.IOException;
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
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * STATS items of page markers against DynamoDB Local: with {@code --statsKey} they live in the table itself, where no
 * GSI holds them (never pages, never marked), the reader finds them through {@code ?statsKey=} and the stream's
 * applier keeps them current; {@code --statsKey}
 * beside {@code --statsTable} is a usage error; a rebuild deletes the STATS item of a group whose items all went, and
 * the reader then says there is no such group; {@code markers remove} deletes them and leaves the table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class MarkerStatsIT {
  static final String TABLE = "markersStatsKey";
  static final int PAGE = 5;
  @TempDir static Path dir;
  DynamoDbLocal local;
  DynamoDbClient client;
  final List<String> groups = List.of("a", "b", "../x");

  @BeforeAll
  void createTable(DynamoDbLocal local) throws Exception {
    this.local = local;
    client = local.client();
    TrickyTable.create(client, TABLE);
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    int id = 0;
    for (String g : groups) {
      for (int i = 0; i < 13 - 4 * groups.indexOf(g); i++) {
        items.add(new HashMap<>(Map.of("PK", AttributeValue.fromS(String.format("s%03d", id++)),
            "SK", AttributeValue.fromS("x"), "PK2", AttributeValue.fromS(g),
            "NUM", AttributeValue.fromN(Integer.toString(i % 4))))); // runs of equal sort keys
      }
    }
    SampleComments.load(client, TABLE, items, 1, null);
  }

  @AfterAll
  void close() {
    client.close();
  }

  BackfillIT.Result build(String... more) {
    List<String> args = new ArrayList<>(List.of("markers", "build", "--table=" + TABLE, "--gsi=byNumber",
        "--pageSize=" + PAGE, "--createIndex", "--segments=1", "--progressSeconds=0",
        "--dynamoEndpoint=" + local.endpoint(), "--deadLetterOutput=" + dir.resolve("dead")));
    args.addAll(List.of(more));
    return BackfillIT.cli(args.toArray(String[]::new));
  }

  /** The table's items whose partition key begins with the STATS prefix. */
  List<Map<String, AttributeValue>> statsItems() {
    List<Map<String, AttributeValue>> found = new ArrayList<>();
    client.scanPaginator(b -> b.tableName(TABLE)).items().forEach(it -> {
      if (it.get("PK").s().startsWith("_pm#")) {
        found.add(it);
      }
    });
    return found;
  }

  @Test
  void statsItemsInTheTableAreNeverPagesAndAGroupWhoseItemsWentLosesItsStats() throws Exception {
    BackfillIT.Result both = build("--statsTable=" + TABLE + ".stats", "--statsKey=_pm");
    assertThat(both.err(), both.code(), is(2));
    assertThat(both.err(), containsString("--statsTable and --statsKey are exclusive"));

    BackfillIT.Result r = build("--statsKey=_pm");
    assertThat(r.err(), r.code(), is(0));
    assertThat(r.out(), containsString("dynamodb://" + TABLE + "/byNumber-markers?statsKey=_pm for pages of 5"));
    assertThrows(ResourceNotFoundException.class,
        () -> client.describeTable(b -> b.tableName(TABLE + ".byNumber-markers")), "no stats table");
    List<Map<String, AttributeValue>> stats = statsItems();
    assertThat("the configuration and one STATS item a group", stats.size(), is(1 + groups.size()));
    for (Map<String, AttributeValue> it : stats) {
      assertThat("no GSI holds " + it.get("PK").s(), it.containsKey("PK2") || it.containsKey("NUM"), is(false));
      assertThat("no marker on " + it.get("PK").s(), it.containsKey("pm_page"), is(false));
    }
    String spec = "dynamodb://" + TABLE + "/byNumber-markers?statsKey=_pm&endpoint=" + local.endpoint();
    assertEveryPageIsTheWalks(spec, groups);
    IOException elsewhere = assertThrows(IOException.class,
        () -> Indexes.open("dynamodb://" + TABLE + "/byNumber-markers?endpoint=" + local.endpoint()));
    assertThat(elsewhere.getMessage(), containsString("run pagemark markers build"));

    // The stream's applier keeps the STATS items in the table current: a new newest item and a middle insert.
    MarkerSpec where = MarkerSpec.parse(spec);
    MarkerChanges changes = new MarkerChanges(client, MarkerTables.read(client, where), StatsItems.of(client, where));
    KeySchema schema = KeySchema.describe(client, TABLE, "byNumber");
    for (int num : new int[] {100, 1}) {
      Map<String, AttributeValue> it = new HashMap<>(Map.of("PK", AttributeValue.fromS("new" + num),
          "SK", AttributeValue.fromS("x"), "PK2", AttributeValue.fromS("a"), "NUM", AttributeValue.fromN("" + num)));
      client.putItem(b -> b.tableName(TABLE).item(it));
      MarkerChanges.Outcome o = changes.apply(KeyValue.ofString("a"), List.of(new IndexChange(KeyValue.ofString("a"),
          List.of(KeyValue.ofString("new" + num), KeyValue.ofString("x")), new Version(num, "" + num), null,
          ItemKeys.extract(schema, it).entry().keys())));
      assertThat("a new newest item is one transaction", o.newest(), is(num == 100));
    }
    assertEveryPageIsTheWalks(spec, List.of("a"));

    // Every item of group b goes; the next build deletes its STATS item.
    client.scanPaginator(b -> b.tableName(TABLE)).items().stream()
        .filter(it -> it.containsKey("PK2") && it.get("PK2").s().equals("b"))
        .forEach(it -> client.deleteItem(d -> d.tableName(TABLE).key(Map.of("PK", it.get("PK"), "SK", it.get("SK")))));
    BackfillIT.Result again = build("--statsKey=_pm");
    assertThat(again.err(), again.code(), is(0));
    assertThat(again.out(), containsString(" 1 STATS items of groups with no items left removed"));
    assertThat(statsItems().size(), is(groups.size()));
    try (Index index = Indexes.open(spec)) {
      GroupNotFoundException gone = assertThrows(GroupNotFoundException.class, () -> index.group("b"));
      assertThat(gone.getMessage(), containsString("no such group {\"S\":\"b\"}"));
      assertThat(index.groups(), containsInAnyOrder(KeyValue.ofString("a"), KeyValue.ofString("../x")));
    }
    assertEveryPageIsTheWalks(spec, List.of("a", "../x"));

    // markers remove takes the markers and the STATS items off, and leaves the table and its items.
    long before = client.scanPaginator(b -> b.tableName(TABLE)).items().stream().count();
    BackfillIT.Result removed = BackfillIT.cli("markers", "remove", "--index=" + spec);
    assertThat(removed.err(), removed.code(), is(0));
    assertThat(removed.out(), containsString("the configuration and STATS items _pm#... in it deleted"));
    assertThat(statsItems().size(), is(0));
    assertThat(client.scanPaginator(b -> b.tableName(TABLE)).items().stream()
        .filter(it -> it.containsKey("pm_page")).count(), is(0L));
    assertThat("the user's items stay", client.scanPaginator(b -> b.tableName(TABLE)).items().stream().count(),
        is(before - groups.size()));
  }

  private void assertEveryPageIsTheWalks(String spec, List<String> which) throws Exception {
    try (Index index = Indexes.open(spec)) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, "byNumber", index);
      for (String g : which) {
        for (Order order : Order.values()) {
          List<List<Map<String, AttributeValue>>> walk =
              PageWalk.pages(client, TABLE, "byNumber", g, PAGE, order == Order.ASC);
          for (int n = 1; n <= walk.size(); n++) {
            assertThat(g + " page " + n + " " + order, PageWalk.keys(reader.read(g, n, PAGE, order).items()),
                equalTo(PageWalk.keys(walk.get(n - 1))));
          }
        }
      }
    }
  }
}
