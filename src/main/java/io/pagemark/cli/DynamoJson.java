package io.pagemark.cli;

import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import java.util.Map;

/** Key maps in DynamoDB's JSON form: {@code {"PK2":{"S":"x"},"SK":{"N":"12"}}}. */
public final class DynamoJson {
  private DynamoJson() {}

  public static String keyMap(Map<String, KeyValue> key) {
    if (key == null) {
      return "null";
    }
    StringBuilder b = new StringBuilder("{");
    for (Map.Entry<String, KeyValue> e : key.entrySet()) {
      if (b.length() > 1) {
        b.append(',');
      }
      b.append(Json.quote(e.getKey())).append(':').append(e.getValue());
    }
    return b.append('}').toString();
  }
}
