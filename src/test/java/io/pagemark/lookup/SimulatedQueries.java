package io.pagemark.lookup;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.KeyAttribute;
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
 * refuses a Query for another table, index or group. A bound on the sort key ({@code #s >= :s} or {@code #s <= :s})
 * filters the items, and an exclusive start key outside it is refused, as DynamoDB refuses it. Integration tests use DynamoDB Local instead.
 */
public final class SimulatedQueries implements DynamoDbClient {
  public static final double CAPACITY_PER_QUERY = 0.5;
  private final String table;
  private final String index;
  private final SimulatedGroup group;
  private int queries;
  private QueryRequest last;

  public SimulatedQueries(String table, String index, SimulatedGroup group) {
    this.table = table;
    this.index = index;
    this.group = group;
  }

  /** Queries answered so far. */
  public synchronized int queries() {
    return queries;
  }

  /** The last Query answered, or null. */
  public synchronized QueryRequest lastRequest() {
    return last;
  }

  @Override
  public synchronized QueryResponse query(QueryRequest r) {
    if (!table.equals(r.tableName()) || !Objects.equals(index, r.indexName())) {
      throw new AssertionError("a Query on " + r.tableName() + "/" + r.indexName() + ", not " + table + "/" + index);
    }
    String groupName = r.expressionAttributeNames().getOrDefault("#g", "?");
    AttributeValue groupValue = r.expressionAttributeValues().get(":g");
    String condition = r.keyConditionExpression();
    boolean bounded = condition.equals("#g = :g AND #s >= :s") || condition.equals("#g = :g AND #s <= :s");
    if (!("#g = :g".equals(condition) || bounded) || !SimulatedGroup.GROUP_ATTRIBUTE.equals(groupName)
        || groupValue == null || !group.group().text().equals(groupValue.s())) {
      throw new AssertionError("a Query for another group: " + r);
    }
    KeyAttribute sort = SimulatedGroup.ATTRIBUTES.get(0);
    KeyValue bound = null;
    if (bounded) {
      if (!sort.name().equals(r.expressionAttributeNames().get("#s"))) {
        throw new AssertionError("a sort key condition on another attribute than " + sort.name() + ": " + r);
      }
      bound = ItemKeys.keyValue(sort.name(), sort.type(), r.expressionAttributeValues().get(":s"));
    }
    queries++;
    last = r;
    Order order = r.scanIndexForward() == null || r.scanIndexForward() ? Order.ASC : Order.DESC;
    boolean atLeast = condition.endsWith(">= :s");
    java.util.function.Predicate<KeyValue> inBounds = v -> true;
    if (bound != null) {
      KeyValue b = bound;
      inBounds = v -> atLeast ? v.compareTo(b) >= 0 : v.compareTo(b) <= 0;
    }
    if (r.hasExclusiveStartKey()) {
      KeyValue startSort = key(r.exclusiveStartKey()).get(sort.name());
      if (!inBounds.test(startSort)) { // DynamoDB refuses such a request with a ValidationException
        throw new AssertionError("the exclusive start key is outside the key condition: " + r);
      }
    }
    List<SimulatedGroup.Item> rest = new ArrayList<>(
        group.query(r.hasExclusiveStartKey() ? key(r.exclusiveStartKey()) : null, order));
    java.util.function.Predicate<KeyValue> keep = inBounds;
    rest.removeIf(it -> !keep.test(group.keyOf(it).get(sort.name())));
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
