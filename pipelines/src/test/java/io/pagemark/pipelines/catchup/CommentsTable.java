package io.pagemark.pipelines.catchup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.transforms.source.TimeBuckets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * An append-mostly comments table shaped like the third seed's: items keyed by {@code PK}, a quarter-hour time bucket
 * {@code bucket} ({@code yyyyMMddHHmm}) with a sort key {@code ts} (timestamp and random suffix) on GSI
 * {@code byBucket} (projecting the grouping keys only), and the grouping GSI {@code byPost} on (PK2, SK2) with few
 * distinct sort keys (ties, UTF-8 vs UTF-16 order) and hostile group keys. The writer only adds items and re-puts
 * items unchanged (duplicates): catch-up cannot see deletes or edits, and the tests leave them out, as documented.
 */
final class CommentsTable {
  static final String GROUP_INDEX = "byPost";
  static final String BUCKET_INDEX = "byBucket";
  static final TimeBuckets BUCKETS = new TimeBuckets(15, "yyyyMMddHHmm");
  static final List<String> SORT_KEYS = List.of("a", "e\u0301", "\u00e9", "\u4e2d", "\uE000", "\uFFFD",
      "\uD83D\uDE00", "z");
  static final List<String> HOSTILE = List.of("../x", "a/b", "<script>", "\u00e9", "e\u0301", "CON", "with space");

  private CommentsTable() {}

  static void create(DynamoDbClient c, String table, ProjectionType bucketProjection) {
    Projection.Builder p = Projection.builder().projectionType(bucketProjection);
    if (bucketProjection == ProjectionType.INCLUDE) {
      p.nonKeyAttributes("PK2", "SK2");
    }
    c.createTable(b -> b.tableName(table)
        .billingMode(BillingMode.PAY_PER_REQUEST)
        .attributeDefinitions(def("PK"), def("PK2"), def("SK2"), def("bucket"), def("ts"))
        .keySchema(key("PK", KeyType.HASH))
        .globalSecondaryIndexes(
            GlobalSecondaryIndex.builder().indexName(GROUP_INDEX).keySchema(key("PK2", KeyType.HASH),
                key("SK2", KeyType.RANGE)).projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                .build(),
            GlobalSecondaryIndex.builder().indexName(BUCKET_INDEX).keySchema(key("bucket", KeyType.HASH),
                key("ts", KeyType.RANGE)).projection(p.build()).build()));
  }

  private static AttributeDefinition def(String name) {
    return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
  }

  private static KeySchemaElement key(String name, KeyType type) {
    return KeySchemaElement.builder().attributeName(name).keyType(type).build();
  }

  /** Writes comments; remembers them, so that duplicates re-put an item exactly as it was. */
  static final class Writer {
    private final DynamoDbClient c;
    private final String table;
    private final Random r;
    private final List<String> groups = new ArrayList<>();
    private final Map<String, Map<String, AttributeValue>> written = new LinkedHashMap<>();
    private int next;

    Writer(DynamoDbClient c, String table, long seed, int groups) {
      this.c = c;
      this.table = table;
      this.r = new Random(seed);
      this.groups.addAll(HOSTILE);
      for (int i = 0; this.groups.size() < groups; i++) {
        this.groups.add("post-" + i);
      }
    }

    /** {@code count} new comments, each stamped with a time up to {@code maxAgeMinutes} before now. */
    void comments(int count, int minAgeMinutes, int maxAgeMinutes) {
      for (int i = 0; i < count; i++) {
        Instant at = Instant.now().minusSeconds(60L * minAgeMinutes
            + (long) (r.nextDouble() * 60 * (maxAgeMinutes - minAgeMinutes)));
        Map<String, AttributeValue> item = new LinkedHashMap<>();
        String pk = String.format("c-%06d", next++);
        item.put("PK", AttributeValue.fromS(pk));
        // a skewed group choice: some groups get many pages, some one
        item.put("PK2", AttributeValue.fromS(groups.get((int) (groups.size() * Math.pow(r.nextDouble(), 2)))));
        item.put("SK2", AttributeValue.fromS(SORT_KEYS.get(r.nextInt(SORT_KEYS.size()))));
        item.put("bucket", AttributeValue.fromS(BUCKETS.name(at)));
        item.put("ts", AttributeValue.fromS(at + "#" + Long.toHexString(r.nextLong())));
        item.put("body", AttributeValue.fromS("comment " + pk));
        put(item);
      }
      flush();
    }

    /** Re-puts {@code count} earlier comments unchanged (a writer's retry, say). */
    void duplicates(int count) {
      List<String> keys = new ArrayList<>(written.keySet());
      for (int i = 0; i < count; i++) {
        put(written.get(keys.get(r.nextInt(keys.size()))));
      }
      flush();
    }

    private final List<WriteRequest> batch = new ArrayList<>();

    private void put(Map<String, AttributeValue> item) {
      if (batch.stream().anyMatch(w -> w.putRequest().item().get("PK").equals(item.get("PK")))) {
        flush(); // one batch holds one write per item
      }
      batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
      written.put(item.get("PK").s(), item);
      if (batch.size() == 25) {
        flush();
      }
    }

    /** Sends the writes not sent yet; every public method ends with it. */
    private void flush() {
      Map<String, List<WriteRequest>> pending = Map.of(table, List.copyOf(batch));
      batch.clear();
      while (!pending.get(table).isEmpty()) {
        Map<String, List<WriteRequest>> send = pending;
        var r = c.batchWriteItem(b -> b.requestItems(send));
        pending = Map.of(table, r.hasUnprocessedItems() && r.unprocessedItems().containsKey(table)
            ? r.unprocessedItems().get(table) : List.of());
      }
    }

    List<String> groups() {
      return groups;
    }

    int size() {
      return written.size();
    }
  }

  /** Every page of every group, both orders, through the index at {@code spec}, against DynamoDB's own walk. */
  static void assertEveryPageIsDynamoDbsPage(DynamoDbClient c, String table, String spec, List<String> groups,
      int pageSize) throws Exception {
    try (Index idx = Indexes.open(spec)) {
      for (String g : groups) {
        for (boolean forward : new boolean[] {true, false}) {
          List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(c, table, GROUP_INDEX, g, pageSize, forward);
          GroupPages pages;
          try {
            pages = idx.group(g);
          } catch (GroupNotFoundException e) {
            assertThat("group " + g + " is not in build " + idx.buildId() + " but DynamoDB has pages", walk.size(),
                is(0));
            continue;
          }
          try (pages) {
            assertThat("pages of group " + g + " in build " + idx.buildId(), pages.pages(pageSize),
                is((long) walk.size()));
            for (int n = 1; n <= walk.size(); n++) {
              PageStart start = pages.pageStart(n, pageSize, forward ? Order.ASC : Order.DESC);
              assertThat("group " + g + " page " + n + (forward ? " asc" : " desc") + " in build " + idx.buildId(),
                  keys(PageWalk.fromStart(c, table, GROUP_INDEX, start)), equalTo(keys(walk.get(n - 1))));
            }
          }
        }
      }
    }
  }

  private static List<String> keys(List<Map<String, AttributeValue>> page) {
    List<String> out = new ArrayList<>();
    for (Map<String, AttributeValue> item : page) {
      out.add(item.get("PK").s() + "|" + item.get("SK2").s());
    }
    return out;
  }
}
