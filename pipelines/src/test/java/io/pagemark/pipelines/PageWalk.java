package io.pagemark.pipelines;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.lookup.PageStart;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/** The reference: every page of a group as DynamoDB's own cursor walk (LastEvaluatedKey) returns it. */
public final class PageWalk {
  private PageWalk() {}

  public static List<List<Map<String, AttributeValue>>> pages(
      DynamoDbClient c, String table, String index, String group, int pageSize, boolean forward) {
    List<List<Map<String, AttributeValue>>> pages = new ArrayList<>();
    Map<String, AttributeValue> from = null;
    do {
      List<Map<String, AttributeValue>> page = new ArrayList<>();
      do {
        QueryRequest.Builder b =
            QueryRequest.builder().tableName(table).indexName(index).keyConditionExpression("PK2 = :g")
                .expressionAttributeValues(Map.of(":g", AttributeValue.fromS(group)))
                .scanIndexForward(forward).limit(pageSize - page.size());
        if (from != null) {
          b.exclusiveStartKey(from);
        }
        QueryResponse r = c.query(b.build());
        page.addAll(r.items());
        from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      } while (from != null && page.size() < pageSize);
      if (!page.isEmpty()) {
        pages.add(page);
      }
    } while (from != null);
    return pages;
  }

  /**
   * The page an application's own Query reads from a page start (group key {@code PK2}): from its exclusive start key,
   * {@code skip} items dropped and {@code pageSize} kept, querying again while DynamoDB stops early (at 1 MB).
   */
  public static List<Map<String, AttributeValue>> fromStart(DynamoDbClient c, String table, String index, PageStart start) {
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    Map<String, AttributeValue> from = start.exclusiveStartKeyAttributes();
    long wanted = start.skip() + start.pageSize();
    long seen = 0;
    do {
      QueryRequest.Builder b =
          QueryRequest.builder().tableName(table).indexName(index).keyConditionExpression("PK2 = :g")
              .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(start.group())))
              .scanIndexForward(start.order().scanIndexForward()).limit((int) (wanted - seen));
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      QueryResponse r = c.query(b.build());
      for (Map<String, AttributeValue> item : r.items()) {
        if (seen++ >= start.skip()) {
          items.add(item);
        }
      }
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null && seen < wanted);
    return items;
  }

  /** The primary keys of a page's items, for readable comparisons. */
  public static List<String> keys(List<Map<String, AttributeValue>> page) {
    List<String> keys = new ArrayList<>();
    for (Map<String, AttributeValue> item : page) {
      keys.add(item.get("PK").s() + "|" + item.get("SK").s());
    }
    return keys;
  }
}
