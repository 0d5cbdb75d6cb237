package io.pagemark.commit.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * A group's keys as DynamoDB itself orders them now: one Query of the GSI in each direction, reading only key
 * attributes. The order of equal sort keys is DynamoDB's own, so markers placed from a walk are exact; it is what a
 * group changed since the scan is placed from.
 */
final class GroupWalk {
  private GroupWalk() {}

  /** Items in ascending order; {@code descending} maps each item's primary key to its descending position. */
  record Walk(List<Map<String, AttributeValue>> ascending, Map<Map<String, AttributeValue>, Long> descending) {}

  static Walk read(DynamoDbClient client, KeySchema schema, KeyValue group) {
    List<Map<String, AttributeValue>> asc = query(client, schema, group, true);
    List<Map<String, AttributeValue>> desc = query(client, schema, group, false);
    Map<Map<String, AttributeValue>, Long> position = new HashMap<>();
    for (int i = 0; i < desc.size(); i++) {
      position.put(primaryKey(schema, desc.get(i)), (long) i);
    }
    return new Walk(asc, position);
  }

  static Map<String, AttributeValue> primaryKey(KeySchema schema, Map<String, AttributeValue> item) {
    Map<String, AttributeValue> key = new LinkedHashMap<>();
    for (String name : schema.primaryKeyNames()) {
      key.put(name, item.get(name));
    }
    return key;
  }

  private static List<Map<String, AttributeValue>> query(
      DynamoDbClient client, KeySchema schema, KeyValue group, boolean forward) {
    Map<String, String> names = new LinkedHashMap<>();
    names.put("#g", schema.groupAttribute());
    List<String> projection = new ArrayList<>(List.of("#g"));
    for (int i = 0; i < schema.storedAttributes().size(); i++) {
      names.put("#a" + i, schema.storedAttributes().get(i).name());
      projection.add("#a" + i);
    }
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    Map<String, AttributeValue> from = null;
    do {
      QueryRequest.Builder b = QueryRequest.builder().tableName(schema.table()).indexName(schema.indexName())
          .keyConditionExpression("#g = :g").expressionAttributeNames(names)
          .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(group)))
          .projectionExpression(String.join(", ", projection)).scanIndexForward(forward);
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(b.build());
      items.addAll(r.items());
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null);
    return items;
  }
}
