package io.pagemark.dynamo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.Json;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Turns a DynamoDB item into what the index stores, or says why it cannot: an item without the group or sort key is
 * one the GSI would not hold either (skipped, as a sparse index skips it); a key of the wrong type, an empty key, or a
 * number DynamoDB would not accept is rejected with a reason (dead letter).
 */
public final class ItemKeys {
  private ItemKeys() {}

  /** Why an item is not in the index although it was read. */
  public enum Skip {
    NO_GROUP_KEY,
    NO_SORT_KEY
  }

  /** The outcome for one item: exactly one of entry, skip, rejection is set. */
  public record Extraction(IndexEntry entry, Skip skip, String rejection) {
    public boolean isEntry() {
      return entry != null;
    }
  }

  public static Extraction extract(KeySchema schema, Map<String, AttributeValue> item) {
    AttributeValue g = item.get(schema.groupAttribute());
    if (g == null || isNull(g)) {
      return new Extraction(null, Skip.NO_GROUP_KEY, null);
    }
    AttributeValue s = item.get(schema.sortAttribute().name());
    if (s == null || isNull(s)) {
      return new Extraction(null, Skip.NO_SORT_KEY, null);
    }
    try {
      KeyValue group = keyValue(schema.groupAttribute(), schema.groupType(), g);
      List<KeyValue> keys = new ArrayList<>(schema.storedAttributes().size());
      for (KeyAttribute a : schema.storedAttributes()) {
        AttributeValue v = item.get(a.name());
        if (v == null) {
          throw new IllegalArgumentException("table key attribute " + a.name() + " is missing");
        }
        keys.add(keyValue(a.name(), a.type(), v));
      }
      return new Extraction(new IndexEntry(group, keys), null, null);
    } catch (IllegalArgumentException e) {
      return new Extraction(null, null, e.getMessage());
    }
  }

  private static boolean isNull(AttributeValue v) {
    return Boolean.TRUE.equals(v.nul());
  }

  /** The key value of an attribute, checked against the expected type. */
  public static KeyValue keyValue(String name, KeyType expected, AttributeValue v) {
    String actual = typeName(v);
    if (!actual.equals(expected.name())) {
      throw new IllegalArgumentException(
          "attribute " + name + " is of type " + actual + ", the index expects " + expected);
    }
    KeyValue k;
    switch (expected) {
      case S:
        k = KeyValue.ofString(v.s());
        break;
      case N:
        try {
          k = KeyValue.ofNumber(v.n());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("attribute " + name + ": " + e.getMessage());
        }
        break;
      case B:
        k = KeyValue.ofBinary(v.b().asByteArray());
        break;
      default:
        throw new AssertionError(expected);
    }
    if (k.length() == 0) {
      throw new IllegalArgumentException("attribute " + name + " is empty; a key attribute cannot be");
    }
    return k;
  }

  /** The attribute value for a key value. */
  public static AttributeValue attributeValue(KeyValue k) {
    switch (k.type()) {
      case S:
        return AttributeValue.fromS(k.text());
      case N:
        return AttributeValue.fromN(k.text());
      case B:
        return AttributeValue.fromB(SdkBytes.fromByteArray(k.bytes()));
      default:
        throw new AssertionError(k.type());
    }
  }

  /** DynamoDB's name of an attribute value's type (S, N, B, SS, M, L, BOOL, NULL, ...). */
  public static String typeName(AttributeValue v) {
    AttributeValue.Type t = v.type();
    return t == null || t == AttributeValue.Type.UNKNOWN_TO_SDK_VERSION ? "unknown" : t.name();
  }

  /**
   * A short DynamoDB-JSON rendering of the named attributes of an item (scalars in full, other types by type name),
   * for dead-letter lines and messages.
   */
  public static String describe(Map<String, AttributeValue> item, List<String> names) {
    return Json.write(describeJson(item, names));
  }

  /** {@link #describe} as a JSON object, to be embedded in a larger one. */
  public static ObjectNode describeJson(Map<String, AttributeValue> item, List<String> names) {
    ObjectNode o = Json.object();
    for (String n : names) {
      AttributeValue v = item.get(n);
      if (v == null) {
        continue;
      }
      String t = typeName(v);
      switch (t) {
        case "S":
          o.putObject(n).put("S", v.s());
          break;
        case "N":
          o.putObject(n).put("N", v.n());
          break;
        case "B":
          o.putObject(n).put("B", java.util.Base64.getEncoder().encodeToString(v.b().asByteArray()));
          break;
        default:
          o.putObject(n).put(t, "...");
      }
    }
    return o;
  }
}
