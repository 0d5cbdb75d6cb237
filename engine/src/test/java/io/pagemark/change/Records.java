package io.pagemark.change;


import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Test fixtures: a key schema like the stream tests' table, and change records in the Kinesis format. */
public final class Records {
  /** Table {@code events} keyed by PK; GSI {@code byGroup} on (PK2, SK2). */
  public static final KeySchema SCHEMA =
      new KeySchema(
          "events", "byGroup", "PK2", KeyType.S,
          java.util.List.of(
              new KeyAttribute("SK2", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
              new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
          "PK", null);

  private Records() {}

  static Map<String, AttributeValue> item(String pk, String group, String sort, String... more) {
    Map<String, AttributeValue> m = new LinkedHashMap<>();
    m.put("PK", AttributeValue.fromS(pk));
    if (group != null) {
      m.put("PK2", AttributeValue.fromS(group));
    }
    if (sort != null) {
      m.put("SK2", AttributeValue.fromS(sort));
    }
    for (int i = 0; i + 1 < more.length; i += 2) {
      m.put(more[i], AttributeValue.fromS(more[i + 1]));
    }
    return m;
  }

  static ObjectNode record(String event, long millis, Map<String, AttributeValue> oldImage,
      Map<String, AttributeValue> newImage) {
    ObjectNode r = JsonNodeFactory.instance.objectNode();
    r.put("awsRegion", "us-east-1");
    r.put("eventID", "e-" + millis);
    r.put("eventName", event);
    r.putNull("userIdentity");
    r.put("recordFormat", "application/json");
    r.put("tableName", "events");
    ObjectNode d = r.putObject("dynamodb");
    d.put("ApproximateCreationDateTime", millis);
    Map<String, AttributeValue> image = newImage != null ? newImage : oldImage;
    d.set("Keys", AttributeValueJson.toJson(Map.of("PK", image.get("PK"))));
    if (newImage != null) {
      d.set("NewImage", AttributeValueJson.toJson(newImage));
    }
    if (oldImage != null) {
      d.set("OldImage", AttributeValueJson.toJson(oldImage));
    }
    d.put("SizeBytes", 100);
    r.put("eventSource", "aws:dynamodb");
    return r;
  }

  public static byte[] bytes(ObjectNode record) {
    return record.toString().getBytes(StandardCharsets.UTF_8);
  }
}
