package io.pagemark.pipelines;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.StreamViewType;

/**
 * The stream tests' table: items keyed by {@code PK}, with a group key {@code PK2} and a sort key {@code SK2} that are
 * ordinary attributes, so that an update can change either; GSI {@code byGroup} on (PK2, SK2); a stream with new and
 * old images. {@link #randomWrites} drives it with a random mix of puts, group and sort key changes, other updates,
 * index-leaving updates and deletes, with few distinct sort keys (equal sort keys) and hostile group keys.
 */
final class StreamTable {
  static final String GSI = "byGroup";
  static final List<String> GROUPS = List.of("alpha", "beta", "gamma", "../x", "a/b", "\u00e9", "e\u0301", "CON",
      "with space", "hot");

  private StreamTable() {}

  static void create(DynamoDbClient c, String table) {
    c.createTable(b -> b.tableName(table)
        .billingMode(BillingMode.PAY_PER_REQUEST)
        .attributeDefinitions(def("PK"), def("PK2"), def("SK2"))
        .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build())
        .globalSecondaryIndexes(GlobalSecondaryIndex.builder().indexName(GSI)
            .keySchema(KeySchemaElement.builder().attributeName("PK2").keyType(KeyType.HASH).build(),
                KeySchemaElement.builder().attributeName("SK2").keyType(KeyType.RANGE).build())
            .projection(Projection.builder().projectionType(ProjectionType.ALL).build()).build())
        .streamSpecification(s -> s.streamEnabled(true).streamViewType(StreamViewType.NEW_AND_OLD_IMAGES)));
  }

  private static AttributeDefinition def(String name) {
    return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
  }

  /** What a random write did, for the tests' accounting. */
  enum Kind { PUT_NEW, PUT_OVER, MOVE_GROUP, MOVE_SORT, TOUCH, LEAVE_INDEX, DELETE, OUTSIDE_INDEX }

  /**
   * Makes {@code count} random writes: items {@code item-NNNNN} over {@code itemSpace} ids, sort keys from a small
   * domain (ties), group keys from {@link #GROUPS} with one hot group. Returns how many writes of each kind were made.
   */
  static Map<Kind, Integer> randomWrites(DynamoDbClient c, String table, int count, int itemSpace, long seed) {
    Writer w = new Writer(c, table, itemSpace, seed);
    w.write(count);
    return w.kinds();
  }

  /** Random writes that remember the table between calls, so that later writes update what earlier ones wrote. */
  static final class Writer {
    private final DynamoDbClient c;
    private final String table;
    private final int itemSpace;
    private final Random r;
    private final Map<String, Map<String, AttributeValue>> live = new HashMap<>();
    private final Map<Kind, Integer> kinds = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger written = new java.util.concurrent.atomic.AtomicInteger();

    Writer(DynamoDbClient c, String table, int itemSpace, long seed) {
      this.c = c;
      this.table = table;
      this.itemSpace = itemSpace;
      this.r = new Random(seed);
    }

    Map<Kind, Integer> kinds() {
      return Map.copyOf(kinds);
    }

    int written() {
      return written.get();
    }

    /** Makes {@code count} writes, sent in BatchWriteItem requests of up to 25 (never two of one item). */
    void write(int count) {
      for (int i = 0; i < count; i++) {
        writeOne();
      }
      flush();
    }

    private final List<software.amazon.awssdk.services.dynamodb.model.WriteRequest> batch = new ArrayList<>();
    private final java.util.Set<String> batchItems = new java.util.HashSet<>();

    private void send(String pk, software.amazon.awssdk.services.dynamodb.model.WriteRequest w) {
      if (batch.size() == 25 || !batchItems.add(pk)) {
        flush();
        batchItems.add(pk);
      }
      batch.add(w);
    }

    private void flush() {
      Map<String, List<software.amazon.awssdk.services.dynamodb.model.WriteRequest>> pending =
          Map.of(table, new ArrayList<>(batch));
      batch.clear();
      batchItems.clear();
      while (!pending.get(table).isEmpty()) {
        Map<String, List<software.amazon.awssdk.services.dynamodb.model.WriteRequest>> send = pending;
        var r = c.batchWriteItem(b -> b.requestItems(send));
        pending = Map.of(table, r.hasUnprocessedItems() && r.unprocessedItems().containsKey(table)
            ? r.unprocessedItems().get(table) : List.of());
      }
    }

    private void writeOne() {
      int i = written.get();
      String pk = String.format("item-%05d", r.nextInt(itemSpace));
      Map<String, AttributeValue> current = live.get(pk);
      Kind kind;
      Map<String, AttributeValue> next = current == null ? null : new HashMap<>(current);
      int dice = r.nextInt(100);
      if (current == null) {
        kind = dice < 8 ? Kind.OUTSIDE_INDEX : Kind.PUT_NEW;
        next = newItem(pk, r);
        if (kind == Kind.OUTSIDE_INDEX) {
          next.remove(r.nextBoolean() ? "PK2" : "SK2");
        }
      } else if (dice < 20) {
        kind = Kind.MOVE_GROUP;
        next.put("PK2", AttributeValue.fromS(group(r)));
        next.putIfAbsent("SK2", AttributeValue.fromS(sort(r)));
      } else if (dice < 40) {
        kind = Kind.MOVE_SORT;
        next.put("SK2", AttributeValue.fromS(sort(r)));
        next.putIfAbsent("PK2", AttributeValue.fromS(group(r)));
      } else if (dice < 55) {
        kind = Kind.TOUCH;
        next.put("text", AttributeValue.fromS("edit " + i));
      } else if (dice < 62) {
        kind = Kind.LEAVE_INDEX;
        next.remove(r.nextBoolean() ? "PK2" : "SK2");
      } else if (dice < 80) {
        kind = Kind.DELETE;
        next = null;
      } else {
        kind = Kind.PUT_OVER;
        next = newItem(pk, r);
      }
      if (next == null) {
        send(pk, software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
            .deleteRequest(d -> d.key(Map.of("PK", AttributeValue.fromS(pk)))).build());
        live.remove(pk);
      } else {
        Map<String, AttributeValue> item = next;
        send(pk, software.amazon.awssdk.services.dynamodb.model.WriteRequest.builder()
            .putRequest(x -> x.item(item)).build());
        live.put(pk, item);
      }
      kinds.merge(kind, 1, Integer::sum);
      written.incrementAndGet();
    }
  }

  private static Map<String, AttributeValue> newItem(String pk, Random r) {
    Map<String, AttributeValue> m = new HashMap<>();
    m.put("PK", AttributeValue.fromS(pk));
    m.put("PK2", AttributeValue.fromS(group(r)));
    m.put("SK2", AttributeValue.fromS(sort(r)));
    m.put("text", AttributeValue.fromS("x".repeat(r.nextInt(40))));
    return m;
  }

  private static String group(Random r) {
    return r.nextInt(3) == 0 ? "hot" : GROUPS.get(r.nextInt(GROUPS.size()));
  }

  private static String sort(Random r) {
    return String.format("2026-%02d-%02d", 1 + r.nextInt(3), 1 + r.nextInt(9));
  }

  /**
   * Asserts that every page of every group, in both orders, served through the index's current build, is the page
   * DynamoDB's own cursor walk returns; groups with no items must be absent from the index.
   */
  static void assertEveryPageIsDynamoDbsPage(DynamoDbClient c, String table, java.nio.file.Path index, int pageSize)
      throws Exception {
    try (io.pagemark.lookup.Index idx = io.pagemark.lookup.Indexes.open(index.toString())) {
      assertEveryPageIsDynamoDbsPage(c, table, idx, pageSize);
    }
  }

  /** {@link #assertEveryPageIsDynamoDbsPage(DynamoDbClient, String, java.nio.file.Path, int)} for any index. */
  static void assertEveryPageIsDynamoDbsPage(DynamoDbClient c, String table, io.pagemark.lookup.Index idx,
      int pageSize) throws Exception {
    {
      for (String g : GROUPS) {
        for (boolean forward : new boolean[] {true, false}) {
          List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(c, table, GSI, g, pageSize, forward);
          io.pagemark.lookup.GroupPages pages;
          try {
            pages = idx.group(g);
          } catch (io.pagemark.lookup.GroupNotFoundException e) {
            org.hamcrest.MatcherAssert.assertThat("group " + g + " is not in build " + idx.buildId()
                + " but DynamoDB has pages", walk.size(), org.hamcrest.Matchers.is(0));
            continue;
          }
          try (pages) {
            org.hamcrest.MatcherAssert.assertThat("pages of group " + g + " in build " + idx.buildId(),
                pages.pages(pageSize), org.hamcrest.Matchers.is((long) walk.size()));
            for (int n = 1; n <= walk.size(); n++) {
              io.pagemark.lookup.PageStart start = pages.pageStart(n, pageSize,
                  forward ? io.pagemark.lookup.Order.ASC : io.pagemark.lookup.Order.DESC);
              org.hamcrest.MatcherAssert.assertThat(
                  "group " + g + " page " + n + (forward ? " asc" : " desc") + " in build " + idx.buildId(),
                  keys(PageWalk.fromStart(c, table, GSI, start)), org.hamcrest.Matchers.equalTo(keys(walk.get(n - 1))));
            }
          }
        }
      }
    }
  }

  /** The keys of a page's items, for readable comparisons. */
  static List<String> keys(List<Map<String, AttributeValue>> page) {
    List<String> out = new ArrayList<>();
    for (Map<String, AttributeValue> item : page) {
      out.add(item.get("PK").s() + "|" + item.get("SK2").s());
    }
    return out;
  }

  /** Group keys that currently hold items in the table's index. */
  static List<String> groupsInIndex(DynamoDbClient c, String table) {
    List<String> out = new ArrayList<>();
    for (String g : GROUPS) {
      if (c.query(b -> b.tableName(table).indexName(GSI).keyConditionExpression("PK2 = :g")
          .expressionAttributeValues(Map.of(":g", AttributeValue.fromS(g))).limit(1)).count() > 0) {
        out.add(g);
      }
    }
    return out;
  }
}
