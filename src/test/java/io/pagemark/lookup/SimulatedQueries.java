package io.pagemark.lookup;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Test double for unit tests of the reading side: DynamoDB's Query on one GSI ({@code table}/{@code index}, or the
 * table itself when {@code index} is null) holding
 * one {@link SimulatedGroup}, as the {@link DynamoDbClient} a {@link PageReader} calls. It answers from the simulated
 * order, stops at the request's limit with a {@code LastEvaluatedKey}, reports 0.5 capacity units a request, and
 * refuses a Query for another table, index or group. Integration tests use DynamoDB Local instead.
 */
public final class SimulatedQueries implements DynamoDbClient {
  public static final double CAPACITY_PER_QUERY = 0.5;
  private final String table;
  private final String index;
  private final SimulatedGroup group;
  private int queries;

  public SimulatedQueries(String table, String index, SimulatedGroup group) {
    this.table = table;
    this.index = index;
    this.group = group;
  }

  /** Queries answered so far. */
  public synchronized int queries() {
    return queries;
  }

  @Override
  public synchronized QueryResponse query(QueryRequest r) {
    if (!table.equals(r.tableName()) || !Objects.equals(index, r.indexName())) {
      throw new AssertionError("a Query on " + r.tableName() + "/" + r.indexName() + ", not " + table + "/" + index);
    }
    String groupName = r.expressionAttributeNames().getOrDefault("#g", "?");
    AttributeValue groupValue = r.expressionAttributeValues().get(":g");
    if (!"#g = :g".equals(r.keyConditionExpression()) || !SimulatedGroup.GROUP_ATTRIBUTE.equals(groupName)
        || groupValue == null || !group.group().text().equals(groupValue.s())) {
      throw new AssertionError("a Query for another group: " + r);
    }
    queries++;
    Order order = r.scanIndexForward() == null || r.scanIndexForward() ? Order.ASC : Order.DESC;
    List<SimulatedGroup.Item> rest = group.query(r.hasExclusiveStartKey() ? key(r.exclusiveStartKey()) : null, order);
    int limit = r.limit() == null ? rest.size() : r.limit();
    List<SimulatedGroup.Item> page = rest.subList(0, Math.min(limit, rest.size()));
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    page.forEach(it -> items.add(item(it)));
    QueryResponse.Builder b = QueryResponse.builder().items(items).count(items.size())
        .consumedCapacity(ConsumedCapacity.builder().tableName(table).capacityUnits(CAPACITY_PER_QUERY).build());
    if (!page.isEmpty() && page.size() == limit) { // as DynamoDB: a full page has a LastEvaluatedKey
      b.lastEvaluatedKey(items.get(items.size() - 1));
    }
    return b.build();
  }

  /** A simulated item as DynamoDB returns it: its group key, sort key and table key. */
  public Map<String, AttributeValue> item(SimulatedGroup.Item it) {
    Map<String, AttributeValue> item = new LinkedHashMap<>();
    group.keyOf(it).forEach((name, value) -> item.put(name, ItemKeys.attributeValue(value)));
    return item;
  }

  private static Map<String, KeyValue> key(Map<String, AttributeValue> key) {
    Map<String, KeyValue> k = new LinkedHashMap<>();
    k.put(SimulatedGroup.GROUP_ATTRIBUTE, ItemKeys.keyValue("PK2", KeyType.S, key.get(SimulatedGroup.GROUP_ATTRIBUTE)));
    SimulatedGroup.ATTRIBUTES.forEach(a -> k.put(a.name(), ItemKeys.keyValue(a.name(), a.type(), key.get(a.name()))));
    return k;
  }

  @Override
  public String serviceName() {
    return SERVICE_NAME;
  }

  @Override
  public void close() {}
}
