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
    Random r = new Random(seed);
    Map<String, Map<String, AttributeValue>> live = new HashMap<>();
    Map<Kind, Integer> kinds = new HashMap<>();
    for (int i = 0; i < count; i++) {
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
        c.deleteItem(b -> b.tableName(table).key(Map.of("PK", AttributeValue.fromS(pk))));
        live.remove(pk);
      } else {
        Map<String, AttributeValue> item = next;
        c.putItem(b -> b.tableName(table).item(item));
        live.put(pk, item);
      }
      kinds.merge(kind, 1, Integer::sum);
    }
    return kinds;
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
