package io.pagemark.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
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
 * Learns a run's order by querying the index for exactly that group key and sort key, in both directions, reading
 * only the table's primary key. An entry that DynamoDB no longer returns (deleted since the scan) leaves the run
 * unresolved; items DynamoDB returns that the scan did not see (written since) are ignored.
 */
public final class DynamoTieOrder implements TieOrder {
  private final DynamoDbClient client;
  private final KeySchema schema;
  private final Runnable onQuery;

  /**
   * Resolves runs through {@code client} (build it with {@link io.pagemark.dynamo.DynamoConnection#client(Runnable)},
   * whose retry policy rides out throttling), calling {@code onQuery} after each Query (a metric, say).
   */
  public DynamoTieOrder(DynamoDbClient client, KeySchema schema, Runnable onQuery) {
    this.client = client;
    this.schema = schema;
    this.onQuery = onQuery;
  }

  @Override
  public Resolved resolve(KeyValue group, KeyValue sortKey, List<IndexEntry> run) {
    Map<List<KeyValue>, Integer> position = new HashMap<>();
    for (int i = 0; i < run.size(); i++) {
      position.put(primaryKey(run.get(i)), i);
    }
    int[] asc = read(group, sortKey, true, position);
    int[] desc = asc == null ? null : read(group, sortKey, false, position);
    return desc == null ? null : new Resolved(asc, desc);
  }

  private int[] read(KeyValue group, KeyValue sortKey, boolean forward, Map<List<KeyValue>, Integer> position) {
    Map<String, String> names = new LinkedHashMap<>();
    names.put("#g", schema.groupAttribute());
    names.put("#s", schema.sortAttribute().name());
    List<String> projection = new ArrayList<>();
    List<String> pkNames = schema.primaryKeyNames();
    for (int i = 0; i < pkNames.size(); i++) {
      names.put("#p" + i, pkNames.get(i));
      projection.add("#p" + i);
    }
    Map<String, AttributeValue> values =
        Map.of(":g", ItemKeys.attributeValue(group), ":s", ItemKeys.attributeValue(sortKey));
    int[] order = new int[position.size()];
    boolean[] seen = new boolean[position.size()];
    int n = 0;
    Map<String, AttributeValue> start = null;
    do {
      QueryRequest.Builder b =
          QueryRequest.builder()
              .tableName(schema.table())
              .keyConditionExpression("#g = :g AND #s = :s")
              .expressionAttributeNames(names)
              .expressionAttributeValues(values)
              .projectionExpression(String.join(",", projection))
              .scanIndexForward(forward);
      if (schema.indexName() != null) {
        b.indexName(schema.indexName());
      }
      if (start != null) {
        b.exclusiveStartKey(start);
      }
      QueryRequest req = b.build();
      QueryResponse r = client.query(req);
      onQuery.run();
      for (Map<String, AttributeValue> item : r.items()) {
        Integer p = position.get(primaryKeyOf(item));
        if (p != null && !seen[p]) {
          seen[p] = true;
          order[n++] = p;
        }
      }
      start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (start != null);
    return n == order.length ? order : null;
  }

  private List<KeyValue> primaryKey(IndexEntry e) {
    Map<String, KeyValue> byName = new HashMap<>();
    byName.put(schema.groupAttribute(), e.group());
    for (int i = 0; i < schema.storedAttributes().size(); i++) {
      byName.put(schema.storedAttributes().get(i).name(), e.keys().get(i));
    }
    List<KeyValue> pk = new ArrayList<>(2);
    for (String name : schema.primaryKeyNames()) {
      pk.add(byName.get(name));
    }
    return pk;
  }

  private List<KeyValue> primaryKeyOf(Map<String, AttributeValue> item) {
    Map<String, io.pagemark.key.KeyType> types = schema.startKeyAttributes();
    List<KeyValue> pk = new ArrayList<>(2);
    for (String name : schema.primaryKeyNames()) {
      AttributeValue v = item.get(name);
      if (v == null) {
        return List.of();
      }
      try {
        pk.add(ItemKeys.keyValue(name, types.get(name), v));
      } catch (IllegalArgumentException e) {
        return List.of();
      }
    }
    return pk;
  }

}
