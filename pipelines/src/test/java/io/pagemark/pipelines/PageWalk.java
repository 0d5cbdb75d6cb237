package io.pagemark.pipelines;

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

  /** The primary keys of a page's items, for readable comparisons. */
  public static List<String> keys(List<Map<String, AttributeValue>> page) {
    List<String> keys = new ArrayList<>();
    for (Map<String, AttributeValue> item : page) {
      keys.add(item.get("PK").s() + "|" + item.get("SK").s());
    }
    return keys;
  }
}
