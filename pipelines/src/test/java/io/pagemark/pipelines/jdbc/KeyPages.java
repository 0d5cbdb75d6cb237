package io.pagemark.pipelines.jdbc;

import io.pagemark.lookup.PageStart;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * DynamoDB's pages of a tricky-table group as item keys ({@code PK|SK}), read with a projection so that comparing
 * every page of a group of 8 KB items stays fast: the reference walk (LastEvaluatedKey, as {@code PageWalk}), and the
 * page a {@link PageStart} names (its exclusive start key, its skip).
 */
final class KeyPages {
  private KeyPages() {}

  /** Every page of the group, as DynamoDB's own cursor walk returns it. */
  static List<List<String>> walk(DynamoDbClient c, String table, String gsi, String group, int pageSize,
      boolean forward) {
    List<List<String>> pages = new ArrayList<>();
    Map<String, AttributeValue> from = null;
    do {
      List<String> page = new ArrayList<>();
      do {
        QueryResponse r = c.query(request(table, gsi, group, forward, pageSize - page.size(), from));
        r.items().forEach(i -> page.add(key(i)));
        from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      } while (from != null && page.size() < pageSize);
      if (!page.isEmpty()) {
        pages.add(page);
      }
    } while (from != null);
    return pages;
  }

  /** The page a page start names: a Query from its exclusive start key, its first {@code skip} items dropped. */
  static List<String> page(DynamoDbClient c, String table, String gsi, PageStart start) {
    long want = start.skip() + start.pageSize();
    List<String> items = new ArrayList<>();
    Map<String, AttributeValue> from = start.exclusiveStartKeyAttributes();
    boolean forward = start.order() == io.pagemark.lookup.Order.ASC;
    do {
      QueryResponse r = c.query(request(table, gsi, start.group().text(), forward, (int) (want - items.size()), from));
      r.items().forEach(i -> items.add(key(i)));
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null && items.size() < want);
    return items.subList((int) Math.min(start.skip(), items.size()), items.size());
  }

  private static QueryRequest request(String table, String gsi, String group, boolean forward, int limit,
      Map<String, AttributeValue> from) {
    QueryRequest.Builder b = QueryRequest.builder().tableName(table).indexName(gsi)
        .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(group)))
        .projectionExpression("PK, SK").scanIndexForward(forward).limit(limit);
    if (from != null) {
      b.exclusiveStartKey(from);
    }
    return b.build();
  }

  private static String key(Map<String, AttributeValue> item) {
    return item.get("PK").s() + "|" + item.get("SK").s();
  }
}
