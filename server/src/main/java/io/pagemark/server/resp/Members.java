package io.pagemark.server.resp;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.Json;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The members of one group's sorted set: each entry's exclusive start key in compact DynamoDB JSON, exactly as
 * {@code pagemark lookup} prints {@code exclusiveStartKey}: the group key attribute, then the stored attributes in the
 * index's order (sort key first), strings escaped as {@link Json#quote} does, binaries in base64. Encodes straight
 * from a record's stored bytes (no objects per member) and parses a member a client sends back. Immutable.
 */
final class Members {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private final String groupAttribute;
  private final KeyValue group;
  private final List<KeyAttribute> attributes;
  private final KeyType[] types;
  /** {@code {"G":{"S":"g"}}} without the closing brace. */
  private final byte[] prefix;
  /** Per stored attribute: {@code ,"A":{"T":"}. */
  private final byte[][] before;

  Members(String groupAttribute, KeyValue group, List<KeyAttribute> attributes) {
    this.groupAttribute = groupAttribute;
    this.group = group;
    this.attributes = List.copyOf(attributes);
    this.types = new KeyType[attributes.size()];
    this.before = new byte[attributes.size()][];
    this.prefix = ("{" + Json.quote(groupAttribute) + ":" + group).getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < attributes.size(); i++) {
      KeyAttribute a = attributes.get(i);
      types[i] = a.type();
      before[i] = ("," + Json.quote(a.name()) + ":{\"" + a.type() + "\":\"").getBytes(StandardCharsets.UTF_8);
    }
  }

  KeyValue group() {
    return group;
  }

  List<KeyAttribute> attributes() {
    return attributes;
  }

  /**
   * Writes the member of the record whose stored values start at {@code values} in {@code record} (each a 2-byte
   * length and its bytes, in attribute order) to {@code out}, and returns its length.
   */
  int encode(byte[] record, int values, Scratch out) {
    out.reset();
    out.append(prefix, 0, prefix.length);
    int p = values;
    for (int i = 0; i < types.length; i++) {
      int length = ((record[p] & 0xFF) << 8) | (record[p + 1] & 0xFF);
      p += 2;
      out.append(before[i], 0, before[i].length);
      if (types[i] == KeyType.B) {
        out.base64(record, p, length);
      } else {
        escape(record, p, length, out);
      }
      out.put((byte) '"');
      out.put((byte) '}');
      p += length;
    }
    out.put((byte) '}');
    return out.size();
  }

  /** UTF-8 bytes of a string, escaped as {@link Json#quote} escapes its characters. */
  private static void escape(byte[] b, int from, int length, Scratch out) {
    int end = from + length;
    out.ensure(length);
    for (int i = from; i < end; i++) {
      byte c = b[i];
      if (c == '"' || c == '\\') {
        out.put((byte) '\\');
        out.put(c);
      } else if (c >= 0 && c < 0x20) {
        switch (c) {
          case '\n':
            out.put((byte) '\\');
            out.put((byte) 'n');
            break;
          case '\r':
            out.put((byte) '\\');
            out.put((byte) 'r');
            break;
          case '\t':
            out.put((byte) '\\');
            out.put((byte) 't');
            break;
          default:
            unicodeEscape(c, out);
        }
      } else if (c == (byte) 0xE2 && i + 2 < end && b[i + 1] == (byte) 0x80
          && (b[i + 2] == (byte) 0xA8 || b[i + 2] == (byte) 0xA9)) {
        unicodeEscape(b[i + 2] == (byte) 0xA8 ? 0x2028 : 0x2029, out); // line and paragraph separators
        i += 2;
      } else {
        out.put(c);
      }
    }
  }

  private static void unicodeEscape(int c, Scratch out) {
    out.put((byte) '\\');
    out.put((byte) 'u');
    out.put(HEX[(c >> 12) & 15]);
    out.put(HEX[(c >> 8) & 15]);
    out.put(HEX[(c >> 4) & 15]);
    out.put(HEX[c & 15]);
  }

  /** A member a client sent, or why it cannot be one of this group. */
  record Parsed(List<KeyValue> keys, String problem) {
    boolean ok() {
      return problem == null;
    }
  }

  /**
   * The stored key values (sort key first) of a member a client sent: a JSON object with this group's key attribute
   * and every stored attribute, each a {@code {"T":"value"}} of its type, in any order; numbers compare by value as
   * DynamoDB's do. A member of another group, or of another shape, is not one of this group's.
   */
  Parsed parse(byte[] member) {
    JsonNode root;
    try {
      root = JSON.readTree(member);
    } catch (JsonProcessingException e) {
      return new Parsed(null, "member is not JSON (" + e.getOriginalMessage() + ")");
    } catch (IOException e) {
      return new Parsed(null, "member is not JSON (" + e.getMessage() + ")");
    }
    if (root == null || !root.isObject()) {
      return new Parsed(null, "member must be a JSON object of key attributes, as PM.PAGE and ZRANGE return");
    }
    if (root.size() != attributes.size() + 1) {
      return new Parsed(null, "member must hold exactly " + expected() + "; it has " + names(root));
    }
    String problem = null;
    KeyValue g = value(root.get(groupAttribute), groupAttribute, group.type());
    if (g == null) {
      return new Parsed(null, "member must hold " + groupAttribute + " as {\"" + group.type() + "\":...}");
    }
    if (!g.equals(group)) {
      return new Parsed(null, "member's " + groupAttribute + " is " + g + ", not this key's " + group);
    }
    List<KeyValue> keys = new ArrayList<>(attributes.size());
    for (KeyAttribute a : attributes) {
      KeyValue v = value(root.get(a.name()), a.name(), a.type());
      if (v == null) {
        problem = "member must hold " + a.name() + " as {\"" + a.type() + "\":\"...\"} (non-empty)";
        break;
      }
      keys.add(v);
    }
    return problem == null ? new Parsed(keys, null) : new Parsed(null, problem);
  }

  private static KeyValue value(JsonNode node, String name, KeyType type) {
    if (node == null || !node.isObject() || node.size() != 1) {
      return null;
    }
    JsonNode v = node.get(type.name());
    if (v == null || !v.isTextual() || v.asText().isEmpty()) {
      return null;
    }
    try {
      return KeyValue.parse(type, v.asText());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private String expected() {
    StringBuilder b = new StringBuilder(groupAttribute);
    attributes.forEach(a -> b.append(", ").append(a.name()));
    return b.toString();
  }

  private static String names(JsonNode root) {
    List<String> names = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      names.add(it.next().getKey());
    }
    return names.isEmpty() ? "none" : String.join(", ", names);
  }

  /** The member of stored key values, built the slow way (for replies outside the read path). */
  byte[] encode(List<KeyValue> keys) {
    StringBuilder b = new StringBuilder("{").append(Json.quote(groupAttribute)).append(':').append(group);
    for (int i = 0; i < attributes.size(); i++) {
      b.append(',').append(Json.quote(attributes.get(i).name())).append(':').append(keys.get(i));
    }
    return b.append('}').toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Base64 of binary values, as {@link KeyValue#text()} gives it. */
  static byte[] base64(byte[] b, int from, int length) {
    return Base64.getEncoder().encode(java.util.Arrays.copyOfRange(b, from, from + length));
  }
}
