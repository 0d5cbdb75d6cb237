package io.pagemark.change;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * DynamoDB's JSON form of attribute values, as DynamoDB writes them into change records: {@code {"S":"x"}},
 * {@code {"N":"1.5"}}, {@code {"B":"<base64>"}}, {@code {"BOOL":true}}, {@code {"NULL":true}}, {@code {"SS":[...]}},
 * {@code {"NS":[...]}}, {@code {"BS":[...]}}, {@code {"L":[...]}}, {@code {"M":{...}}}.
 */
public final class AttributeValueJson {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private AttributeValueJson() {}

  /** An item (attribute name to value) as a JSON object. */
  public static ObjectNode toJson(Map<String, AttributeValue> item) {
    ObjectNode o = NODES.objectNode();
    item.forEach((k, v) -> o.set(k, toJson(v)));
    return o;
  }

  /** One value as a JSON object with one field named by its type. */
  public static ObjectNode toJson(AttributeValue v) {
    ObjectNode o = NODES.objectNode();
    switch (v.type()) {
      case S:
        return o.put("S", v.s());
      case N:
        return o.put("N", v.n());
      case B:
        return o.put("B", base64(v.b()));
      case BOOL:
        return o.put("BOOL", v.bool());
      case NUL:
        return o.put("NULL", true);
      case SS:
        v.ss().forEach(o.putArray("SS")::add);
        return o;
      case NS:
        v.ns().forEach(o.putArray("NS")::add);
        return o;
      case BS: {
        ArrayNode a = o.putArray("BS");
        v.bs().forEach(b -> a.add(base64(b)));
        return o;
      }
      case L: {
        ArrayNode a = o.putArray("L");
        v.l().forEach(e -> a.add(toJson(e)));
        return o;
      }
      case M:
        o.set("M", toJson(v.m()));
        return o;
      default:
        throw new IllegalArgumentException("attribute value of unknown type: " + v);
    }
  }

  /**
   * A JSON object as an item; throws {@link IllegalArgumentException} naming the attribute when a value is not in
   * DynamoDB's JSON form.
   */
  public static Map<String, AttributeValue> itemFromJson(JsonNode object) {
    if (!object.isObject()) {
      throw new IllegalArgumentException("expected an object of attributes, found " + object.getNodeType());
    }
    Map<String, AttributeValue> m = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      try {
        m.put(e.getKey(), fromJson(e.getValue()));
      } catch (IllegalArgumentException x) {
        throw new IllegalArgumentException("attribute " + e.getKey() + ": " + x.getMessage());
      }
    }
    return m;
  }

  /** One value from its JSON form; throws {@link IllegalArgumentException} when it is not one. */
  public static AttributeValue fromJson(JsonNode node) {
    if (!node.isObject() || node.size() != 1) {
      throw new IllegalArgumentException("not a DynamoDB JSON value (an object with one type field): " + node);
    }
    Map.Entry<String, JsonNode> e = node.fields().next();
    JsonNode v = e.getValue();
    switch (e.getKey()) {
      case "S":
        return AttributeValue.fromS(text(v, "S"));
      case "N":
        return AttributeValue.fromN(v.isNumber() ? v.asText() : text(v, "N"));
      case "B":
        return AttributeValue.fromB(bytes(v));
      case "BOOL":
        if (!v.isBoolean()) {
          throw new IllegalArgumentException("BOOL must be true or false");
        }
        return AttributeValue.fromBool(v.booleanValue());
      case "NULL":
        return AttributeValue.fromNul(true);
      case "SS":
        return AttributeValue.fromSs(texts(v, "SS"));
      case "NS":
        return AttributeValue.fromNs(texts(v, "NS"));
      case "BS": {
        List<SdkBytes> out = new ArrayList<>();
        array(v, "BS").forEach(b -> out.add(bytes(b)));
        return AttributeValue.fromBs(out);
      }
      case "L": {
        List<AttributeValue> out = new ArrayList<>();
        array(v, "L").forEach(x -> out.add(fromJson(x)));
        return AttributeValue.fromL(out);
      }
      case "M":
        return AttributeValue.fromM(itemFromJson(v));
      default:
        throw new IllegalArgumentException("unknown DynamoDB type \"" + e.getKey() + "\"");
    }
  }

  private static String text(JsonNode v, String type) {
    if (!v.isTextual()) {
      throw new IllegalArgumentException(type + " value must be a string, not " + v.getNodeType());
    }
    return v.textValue();
  }

  private static SdkBytes bytes(JsonNode v) {
    try {
      return SdkBytes.fromByteArray(Base64.getDecoder().decode(text(v, "B")));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("B value is not base64: " + e.getMessage());
    }
  }

  private static JsonNode array(JsonNode v, String type) {
    if (!v.isArray()) {
      throw new IllegalArgumentException(type + " value must be an array");
    }
    return v;
  }

  private static List<String> texts(JsonNode v, String type) {
    List<String> out = new ArrayList<>();
    array(v, type).forEach(x -> out.add(text(x, type)));
    return out;
  }

  private static String base64(SdkBytes b) {
    return Base64.getEncoder().encodeToString(b.asByteArray());
  }
}
