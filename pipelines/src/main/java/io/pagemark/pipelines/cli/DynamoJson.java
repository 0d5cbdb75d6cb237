package io.pagemark.pipelines.cli;

import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Keys and items in DynamoDB's JSON form, as the AWS CLI prints them: {@code {"PK2":{"S":"x"},"SK":{"N":"12"}}},
 * binary values in base64.
 */
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

  /** An item with every attribute type; attributes by name, so that equal items print equally. */
  public static String item(Map<String, AttributeValue> item) {
    StringBuilder b = new StringBuilder();
    appendMap(b, item);
    return b.toString();
  }

  /** One attribute value, e.g. {@code {"L":[{"N":"1"},{"NULL":true}]}}. */
  public static String value(AttributeValue v) {
    StringBuilder b = new StringBuilder();
    appendValue(b, v);
    return b.toString();
  }

  private static void appendMap(StringBuilder b, Map<String, AttributeValue> m) {
    b.append('{');
    boolean first = true;
    for (Map.Entry<String, AttributeValue> e : new TreeMap<>(m).entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      b.append(Json.quote(e.getKey())).append(':');
      appendValue(b, e.getValue());
    }
    b.append('}');
  }

  private static void appendValue(StringBuilder b, AttributeValue v) {
    AttributeValue.Type type = v.type();
    if (type == null || type == AttributeValue.Type.UNKNOWN_TO_SDK_VERSION) {
      throw new IllegalArgumentException("attribute value of a type this SDK does not know: " + v);
    }
    // The SDK calls the NULL type NUL; DynamoDB's JSON calls it NULL.
    b.append("{\"").append(type == AttributeValue.Type.NUL ? "NULL" : type.name()).append("\":");
    switch (type) {
      case S:
        b.append(Json.quote(v.s()));
        break;
      case N:
        b.append(Json.quote(v.n()));
        break;
      case B:
        b.append(Json.quote(base64(v.b())));
        break;
      case BOOL:
        b.append(v.bool());
        break;
      case NUL:
        b.append("true");
        break;
      case SS:
        appendStrings(b, v.ss());
        break;
      case NS:
        appendStrings(b, v.ns());
        break;
      case BS:
        appendStrings(b, v.bs().stream().map(DynamoJson::base64).toList());
        break;
      case M:
        appendMap(b, v.m());
        break;
      case L:
        b.append('[');
        for (int i = 0; i < v.l().size(); i++) {
          if (i > 0) {
            b.append(',');
          }
          appendValue(b, v.l().get(i));
        }
        b.append(']');
        break;
      default:
        throw new AssertionError(type);
    }
    b.append('}');
  }

  private static void appendStrings(StringBuilder b, List<String> values) {
    b.append('[');
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(Json.quote(values.get(i)));
    }
    b.append(']');
  }

  private static String base64(SdkBytes bytes) {
    return Base64.getEncoder().encodeToString(bytes.asByteArray());
  }
}
