package io.pagemark.key;

import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * The JSON that pagemark writes (manifests, dead letters, command output), through one Jackson mapper. Output is
 * compact and objects keep the order their fields were put in. Strings escape {@code "}, {@code \}, newline, carriage
 * return and tab as two-character escapes and every other control character, U+2028 and U+2029 as lowercase
 * {@code \u005Cu} escapes; every other character is written as itself (UTF-8 when the text is written as bytes). Those
 * escapes are the ones index manifests have always had, so that files and lines written before stay byte for byte
 * what is written now.
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper(new JsonFactoryBuilder().characterEscapes(new Escapes()).build());

  private Json() {}

  /** The string as a JSON string literal. */
  public static String quote(String s) {
    return write(TextNode.valueOf(s));
  }

  /** An empty object, to be filled in the order its fields should be written. */
  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** A key value in DynamoDB's JSON form, e.g. {@code {"S":"abc"}}; numbers as the text DynamoDB returned. */
  public static ObjectNode of(KeyValue v) {
    return object().put(v.type().name(), v.text());
  }

  /** The node as compact JSON text. */
  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      // A tree of plain nodes always serializes; this would be a bug in Jackson or in a custom node.
      throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
    }
  }

  /** Jackson's standard escapes, except the ones listed in the class comment. */
  private static final class Escapes extends CharacterEscapes {
    private static final long serialVersionUID = 1L;
    private final int[] ascii = standardAsciiEscapesForJSON();

    Escapes() {
      for (int c = 0; c < 0x20; c++) {
        if (c != '\n' && c != '\r' && c != '\t') {
          ascii[c] = ESCAPE_CUSTOM; // Jackson would write \b and \f, and uppercase hex digits
        }
      }
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return ascii;
    }

    @Override
    public SerializableString getEscapeSequence(int c) {
      return c < 0x20 || c == 0x2028 || c == 0x2029 ? new SerializedString(String.format("\\u%04x", c)) : null;
    }
  }
}
