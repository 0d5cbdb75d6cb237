package io.pagemark.commit.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.key.KeyValue;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The conditional writes of markers: a stamp touches only the marker attributes of an item that still exists with the
 * group and sort key it was placed by; a removal only takes off the marker it read.
 */
final class MarkerWrites {
  private MarkerWrites() {}

  static UpdateItemRequest stamp(MarkerConfig config, KeyValue group, MarkedItem m) {
    Map<String, String> names = new HashMap<>();
    names.put("#m", config.markerAttribute());
    names.put("#t", config.tieAttribute());
    names.put("#g", config.schema().groupAttribute());
    names.put("#s", config.schema().sortAttribute().name());
    names.put("#p", config.schema().tablePartitionKey());
    Map<String, AttributeValue> values = new HashMap<>();
    values.put(":k", AttributeValue.fromN(Long.toString(m.page())));
    values.put(":g", ItemKeys.attributeValue(group));
    values.put(":s", m.sortKey());
    String update = "SET #m = :k";
    if (m.tie() != 0) {
      values.put(":t", AttributeValue.fromN(Long.toString(m.tie())));
      update += ", #t = :t";
    } else {
      update += " REMOVE #t";
    }
    return UpdateItemRequest.builder().tableName(config.schema().table()).key(m.primaryKey())
        .updateExpression(update)
        .conditionExpression("attribute_exists(#p) AND #g = :g AND #s = :s")
        .expressionAttributeNames(names).expressionAttributeValues(values).build();
  }

  static UpdateItemRequest remove(MarkerConfig config, MarkedItem m) {
    return UpdateItemRequest.builder().tableName(config.schema().table()).key(m.primaryKey())
        .updateExpression("REMOVE #m, #t")
        .conditionExpression("#m = :k")
        .expressionAttributeNames(Map.of("#m", config.markerAttribute(), "#t", config.tieAttribute()))
        .expressionAttributeValues(Map.of(":k", AttributeValue.fromN(Long.toString(m.page()))))
        .build();
  }
}
