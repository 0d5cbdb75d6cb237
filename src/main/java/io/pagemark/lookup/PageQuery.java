package io.pagemark.lookup;

import io.pagemark.dynamo.ItemKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * Reads the DynamoDB items of a page from where the index says it starts: a Query on the index for the group, in
 * the page's order, from its exclusive start key, asking for {@code skip + pageSize} items and querying again while
 * DynamoDB returns fewer (a Query stops at 1 MB), then dropping the first {@code skip}.
 *
 * <p>With a start key, the Query also bounds the sort key by the start key's own ({@code >=} ascending, {@code <=}
 * descending). Every item after the start key in the Query's order satisfies that bound, so DynamoDB returns the same
 * items; but a store that walks from the first item of the key condition to reach an {@code ExclusiveStartKey}
 * (DynamoDB Local does) then walks only the start key's run of equal sort keys instead of every item before it, and
 * a deep page costs what page 1 costs there too.
 */
final class PageQuery {
  private final DynamoDbClient client;
  private final String table;
  private final String indexName;
  private final String groupAttribute;
  private final String sortAttribute;

  /**
   * @param indexName the GSI to query, or null to query the table itself (when the group key is its partition key)
   * @param sortAttribute the index's sort key (the Query's range key)
   */
  PageQuery(DynamoDbClient client, String table, String indexName, String groupAttribute, String sortAttribute) {
    this.client = client;
    this.table = table;
    this.indexName = indexName;
    this.groupAttribute = groupAttribute;
    this.sortAttribute = sortAttribute;
  }

  /** A page's items with what reading them cost. */
  record Page(List<Map<String, AttributeValue>> items, int requests, double consumedReadCapacity) {}

  Page fetch(PageStart start) {
    long wanted = start.skip() + start.pageSize();
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    Map<String, AttributeValue> from = start.exclusiveStartKeyAttributes();
    int requests = 0;
    double capacity = 0;
    long seen = 0;
    String condition = "#g = :g";
    Map<String, String> names = Map.of("#g", groupAttribute);
    Map<String, AttributeValue> values = Map.of(":g", ItemKeys.attributeValue(start.group()));
    AttributeValue bound = from == null ? null : from.get(sortAttribute);
    if (bound != null) {
      condition += start.order().scanIndexForward() ? " AND #s >= :s" : " AND #s <= :s";
      names = Map.of("#g", groupAttribute, "#s", sortAttribute);
      values = Map.of(":g", values.get(":g"), ":s", bound);
    }
    do {
      QueryRequest.Builder b =
          QueryRequest.builder()
              .tableName(table)
              .keyConditionExpression(condition)
              .expressionAttributeNames(names)
              .expressionAttributeValues(values)
              .scanIndexForward(start.order().scanIndexForward())
              .limit((int) Math.min(Integer.MAX_VALUE, wanted - seen))
              .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
      if (indexName != null) {
        b.indexName(indexName);
      }
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(b.build());
      requests++;
      if (r.consumedCapacity() != null && r.consumedCapacity().capacityUnits() != null) {
        capacity += r.consumedCapacity().capacityUnits();
      }
      for (Map<String, AttributeValue> item : r.items()) {
        if (seen++ >= start.skip()) {
          items.add(item);
        }
      }
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null && seen < wanted);
    return new Page(items, requests, capacity);
  }
}
