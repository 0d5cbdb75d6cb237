package io.pagemark.pipelines.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.change.AttributeValueJson;
import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Keys and items in DynamoDB's JSON form, as the AWS CLI prints them: {@code {"PK2":{"S":"x"},"SK":{"N":"12"}}},
 * binary values in base64. A key keeps the order of its attributes; an item's attributes (and a map's) are sorted by
 * name, so that equal items print equally.
 */
public final class DynamoJson {
  private DynamoJson() {}

  /** An exclusive start key, or JSON null for none (page 1). */
  public static JsonNode key(Map<String, KeyValue> key) {
    if (key == null) {
      return NullNode.instance;
    }
    ObjectNode o = Json.object();
    key.forEach((name, value) -> o.set(name, Json.of(value)));
    return o;
  }

  /** An item with every attribute type. */
  public static ObjectNode itemJson(Map<String, AttributeValue> item) {
    return (ObjectNode) sorted(AttributeValueJson.toJson(item));
  }

  /** {@link #itemJson} as text. */
  public static String item(Map<String, AttributeValue> item) {
    return Json.write(itemJson(item));
  }

  private static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.sort(null);
      ObjectNode o = Json.object();
      names.forEach(n -> o.set(n, sorted(node.get(n))));
      return o;
    }
    if (node.isArray()) {
      ArrayNode a = ((ArrayNode) node).arrayNode();
      node.forEach(e -> a.add(sorted(e)));
      return a;
    }
    return node;
  }
}
