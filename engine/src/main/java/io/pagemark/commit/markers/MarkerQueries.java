package io.pagemark.commit.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/** Reads the markers a group carries now, from the sparse marker index. */
final class MarkerQueries {
  private MarkerQueries() {}

  /** Every marker of the group, in marker order. */
  static List<MarkedItem> markers(DynamoDbClient client, MarkerConfig config, KeyValue group) {
    List<MarkedItem> found = new ArrayList<>();
    Map<String, AttributeValue> from = null;
    do {
      QueryRequest.Builder b = QueryRequest.builder().tableName(config.schema().table())
          .indexName(config.markerIndex()).keyConditionExpression("#g = :g")
          .expressionAttributeNames(Map.of("#g", config.schema().groupAttribute()))
          .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(group)));
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(b.build());
      for (Map<String, AttributeValue> item : r.items()) {
        AttributeValue tie = item.get(config.tieAttribute());
        found.add(new MarkedItem(GroupWalk.primaryKey(config.schema(), item),
            item.get(config.schema().sortAttribute().name()),
            Long.parseLong(item.get(config.markerAttribute()).n()), tie == null ? 0 : Long.parseLong(tie.n())));
      }
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null);
    return found;
  }
}
