package io.pagemark.pipelines.markers;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.commit.markers.GroupMarkers;
import io.pagemark.commit.markers.MarkerChanges;
import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Keeping page markers current after changes, against DynamoDB Local: after random inserts, deletes and sort key
 * moves (ties and replays included) every page of the group in both orders equals DynamoDB's cursor walk; a new newest
 * item is one transaction; a change at the oldest end of a long group rewrites its markers in transactions of at most
 * 100 actions; a transaction DynamoDB cancels because a concurrent write changed an item under it is retried, and
 * every page stays exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class MarkerChangesIT {
  static final String TABLE = "markerChanges";
  static final int PAGE = 5;
  DynamoDbLocal local;
  DynamoDbClient client;
  KeySchema schema;
  MarkerSpec where;
  MarkerChanges changes;
  long sequence;

  @BeforeAll
  void createTable(DynamoDbLocal local) {
    this.local = local;
    client = local.client();
    TrickyTable.create(client, TABLE);
    schema = KeySchema.describe(client, TABLE, TrickyTable.BY_NUMBER);
    where = new MarkerSpec(TABLE, "byNumber-markers", null, local.connection());
    MarkerConfig config = MarkerTables.prepare(client, where, schema, "pm_page", PAGE, true, "changes");
    changes = new MarkerChanges(client, config, where.statsTable());
  }

  @AfterAll
  void close() {
    client.close();
  }

  private Map<String, AttributeValue> item(String group, String pk, long num) {
    return new HashMap<>(Map.of("PK", AttributeValue.fromS(pk), "SK", AttributeValue.fromS("x"),
        "PK2", AttributeValue.fromS(group), "NUM", AttributeValue.fromN(Long.toString(num))));
  }

  private List<KeyValue> entry(Map<String, AttributeValue> item) {
    return ItemKeys.extract(schema, item).entry().keys();
  }

  private IndexChange change(String group, Map<String, AttributeValue> before, Map<String, AttributeValue> after) {
    Map<String, AttributeValue> any = after != null ? after : before;
    return new IndexChange(KeyValue.ofString(group),
        List.of(KeyValue.ofString(any.get("PK").s()), KeyValue.ofString("x")),
        new Version(++sequence, Long.toString(sequence)), before == null ? null : entry(before),
        after == null ? null : entry(after));
  }

  private MarkerChanges.Outcome apply(String group, IndexChange c) {
    return changes.apply(KeyValue.ofString(group), List.of(c));
  }

  private void assertEveryPageIsTheWalks(String group, String when) throws Exception {
    try (Index index = Indexes.open(where + "?endpoint=" + local.endpoint())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, TrickyTable.BY_NUMBER, index);
      for (Order order : Order.values()) {
        List<List<Map<String, AttributeValue>>> walk =
            PageWalk.pages(client, TABLE, TrickyTable.BY_NUMBER, group, PAGE, order == Order.ASC);
        assertThat(when + ": pages " + order, index.group(group).pages(PAGE), is((long) walk.size()));
        for (int n = 1; n <= walk.size(); n++) {
          assertThat(when + ": page " + n + " " + order, PageWalk.keys(reader.read(group, n, PAGE, order).items()),
              equalTo(PageWalk.keys(walk.get(n - 1))));
        }
      }
    }
  }

  @Test
  void afterRandomInsertsDeletesAndMovesEveryPageIsTheCursorWalksPage() throws Exception {
    String group = "g";
    Random r = new Random(20);
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      items.add(item(group, String.format("p%04d", i), r.nextInt(30)));
    }
    SampleComments.load(client, TABLE, items, 1, null);
    new GroupMarkers(client, config(), where.statsTable()).rewrite(KeyValue.ofString(group));
    assertEveryPageIsTheWalks(group, "after the build");
    long newestNum = 1000;
    int next = 60;
    int newestInserts = 0;
    for (int op = 1; op <= 60; op++) {
      int kind = r.nextInt(4);
      String when = "after change " + op;
      if (kind == 0 || items.isEmpty()) {
        Map<String, AttributeValue> it = item(group, String.format("p%04d", next++), newestNum++);
        client.putItem(b -> b.tableName(TABLE).item(it));
        items.add(it);
        IndexChange c = change(group, null, it);
        MarkerChanges.Outcome o = apply(group, c);
        assertThat(when + ": a new newest item is one transaction", o.newest() && o.transactions() == 1, is(true));
        MarkerChanges.Outcome replay = apply(group, c);
        assertThat(when + ": a replayed insert writes nothing", replay.transactions(), is(0));
        newestInserts++;
      } else if (kind == 1) {
        Map<String, AttributeValue> it = item(group, String.format("p%04d", next++), r.nextInt(30));
        client.putItem(b -> b.tableName(TABLE).item(it));
        items.add(it);
        apply(group, change(group, null, it));
      } else if (kind == 2) {
        Map<String, AttributeValue> it = items.remove(r.nextInt(items.size()));
        client.deleteItem(b -> b.tableName(TABLE).key(Map.of("PK", it.get("PK"), "SK", it.get("SK"))));
        apply(group, change(group, it, null));
      } else {
        int i = r.nextInt(items.size());
        Map<String, AttributeValue> before = items.get(i);
        Map<String, AttributeValue> after = item(group, before.get("PK").s(), r.nextInt(30));
        if (after.get("NUM").equals(before.get("NUM"))) {
          after.put("NUM", AttributeValue.fromN(Long.toString(Long.parseLong(before.get("NUM").n()) + 1)));
        }
        client.putItem(b -> b.tableName(TABLE).item(after));
        items.set(i, after);
        MarkerChanges.Outcome o = apply(group, change(group, before, after));
        MarkerChanges.Outcome again = apply(group, change(group, before, after));
        assertThat(when + ": applying a move again writes nothing", again.transactions(), is(0));
        assertThat(o.largest(), lessThanOrEqualTo(MarkerChanges.MAX_ACTIONS));
      }
      if (op % 15 == 0) {
        assertEveryPageIsTheWalks(group, when);
      }
    }
    assertThat("the seed gives some new newest items", newestInserts, greaterThan(3));
  }

  @Test
  void aChangeAtTheOldestEndRewritesEveryMarkerInTransactionsOfAtMost100Actions() throws Exception {
    String group = "long";
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int i = 0; i < 700; i++) {
      items.add(item(group, String.format("l%04d", i), 10 + i));
    }
    SampleComments.load(client, TABLE, items, 2, null);
    new GroupMarkers(client, config(), where.statsTable()).rewrite(KeyValue.ofString(group));
    Map<String, AttributeValue> oldest = items.get(0);
    client.deleteItem(b -> b.tableName(TABLE).key(Map.of("PK", oldest.get("PK"), "SK", oldest.get("SK"))));
    MarkerChanges.Outcome o = apply(group, change(group, oldest, null));
    assertThat("140 markers off, 139 on at the next items, and the STATS item", o.actions(), is(140 + 139 + 1));
    assertThat(o.transactions(), is(3));
    assertThat(o.largest(), is(MarkerChanges.MAX_ACTIONS));
    assertEveryPageIsTheWalks(group, "after deleting the oldest item");
  }

  /**
   * A user's delete races the stream's transaction: just before the stream's first TransactWriteItems of a rewrite
   * reaches DynamoDB Local, the item of its first action is deleted (through another client). DynamoDB cancels the
   * transaction, and the applier backs off, reads the group again and writes what the table now calls for.
   */
  @Test
  void aTransactionCancelledByAConcurrentWriteIsRetriedAndEveryPageStaysExact() throws Exception {
    String group = "race";
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int i = 0; i < 23; i++) {
      items.add(item(group, String.format("r%04d", i), 10 + i / 3)); // runs of three equal sort keys
    }
    SampleComments.load(client, TABLE, items, 1, null);
    new GroupMarkers(client, config(), where.statsTable()).rewrite(KeyValue.ofString(group));
    List<String> raced = new ArrayList<>();
    List<String> cancellations = new ArrayList<>();
    ExecutionInterceptor racer = new ExecutionInterceptor() {
      @Override
      public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        if (context.request() instanceof TransactWriteItemsRequest t && raced.isEmpty()) {
          Map<String, AttributeValue> key = t.transactItems().get(0).update().key();
          client.deleteItem(b -> b.tableName(TABLE).key(key)); // the user's own client
          raced.add(key.get("PK").s());
        }
      }

      @Override
      public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        if (context.exception() instanceof TransactionCanceledException e) {
          e.cancellationReasons().forEach(r -> cancellations.add(String.valueOf(r.code())));
        }
      }
    };
    try (DynamoDbClient streams = DynamoConnection.configure(DynamoDbClient.builder(), local.endpoint(),
        DynamoConnection.DEFAULT_REGION).overrideConfiguration(o -> o.addExecutionInterceptor(racer)).build()) {
      // an insert in the middle: every later marker moves, in one transaction
      Map<String, AttributeValue> middle = item(group, "r9999", 12);
      client.putItem(b -> b.tableName(TABLE).item(middle));
      MarkerChanges.Outcome o = new MarkerChanges(streams, config(), where.statsTable())
          .apply(KeyValue.ofString(group), List.of(change(group, null, middle)));
      assertThat("the racing delete happened", raced.size(), is(1));
      assertThat("DynamoDB cancelled the transaction: " + cancellations, cancellations,
          hasItem("ConditionalCheckFailed"));
      assertThat(o.retries(), greaterThan(0));
    }
    assertThat(client.getItem(b -> b.tableName(TABLE).key(Map.of("PK", AttributeValue.fromS(raced.get(0)),
        "SK", AttributeValue.fromS("x")))).hasItem(), is(false));
    assertEveryPageIsTheWalks(group, "after the cancelled transaction was retried");
  }

  private MarkerConfig config() {
    return MarkerTables.read(client, where);
  }
}
