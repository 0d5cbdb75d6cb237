package io.pagemark.server.http;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Group keys in URLs, both ways: a group is one percent-encoded path segment holding its text for S keys, its
 * decimal for N keys and its base64url bytes for B keys; query strings are {@code name=value} pairs. Decoding is
 * strict (a bad escape or bytes that are not UTF-8 are a {@link HttpFailure} 400), so no two different URLs name one
 * group by accident and no group becomes anything but a lookup key.
 */
final class UrlText {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private UrlText() {}

  /** The path segment of a group: every byte outside RFC 3986's unreserved set percent-encoded. */
  static String segment(KeyValue group) {
    String text = text(group);
    if (text.chars().allMatch(c -> c == '.')) {
      // "." and ".." would be dot-segments; encoded they still are to WHATWG parsers, but not to most HTTP clients.
      return "%2E".repeat(text.length());
    }
    return encode(text);
  }

  /** A query parameter value, percent-encoded (a space as %20). */
  static String queryValue(String value) {
    return encode(value);
  }

  /** A group as the URL's text: its text for S and N, unpadded base64url for B. */
  static String text(KeyValue group) {
    if (group.type() == KeyType.B) {
      return Base64.getUrlEncoder().withoutPadding().encodeToString(group.bytes());
    }
    return group.text();
  }

  /**
   * A group key of the index's type from a decoded path segment; a {@link HttpFailure} 400 that names the type when
   * the text cannot be such a key.
   */
  static KeyValue group(KeyType type, String text) throws HttpFailure {
    if (text.isEmpty()) {
      throw HttpFailure.badRequest("the group is empty; DynamoDB keys are never empty");
    }
    try {
      switch (type) {
        case S:
          return KeyValue.ofString(text);
        case N:
          return KeyValue.ofNumber(text);
        case B:
          return KeyValue.ofBinary(Base64.getUrlDecoder().decode(text));
        default:
          throw new AssertionError(type);
      }
    } catch (IllegalArgumentException e) {
      throw HttpFailure.badRequest("group \"" + Messages.shorten(text) + "\" cannot be a key of this index: its"
          + " group keys are of type " + type + " (" + describe(type) + "); " + e.getMessage());
    }
  }

  private static String describe(KeyType type) {
    switch (type) {
      case S:
        return "text";
      case N:
        return "a decimal number";
      default:
        return "bytes in base64url";
    }
  }

  /** Percent-decodes a path segment ({@code +} stays a plus). */
  static String decodeSegment(String raw) throws HttpFailure {
    return decode(raw, false);
  }

  /** Parses a raw query string into its parameters; a name given twice is a 400. */
  static Map<String, String> query(String raw) throws HttpFailure {
    return query(raw, null, new ArrayList<>());
  }

  /**
   * Parses a raw query string into its parameters; {@code repeated} (a union's {@code group}) may be given many times
   * and its values, in order, go to {@code values}; any other name given twice is a 400.
   */
  static Map<String, String> query(String raw, String repeated, List<String> values) throws HttpFailure {
    Map<String, String> params = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    for (String pair : raw.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq), true);
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1), true);
      if (name.equals(repeated)) {
        values.add(value);
      } else if (params.put(name, value) != null) {
        throw HttpFailure.badRequest("query parameter \"" + Messages.shorten(name) + "\" is given twice");
      }
    }
    return params;
  }

  private static String encode(String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder(bytes.length + 8);
    for (byte x : bytes) {
      int c = x & 0xff;
      if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
          || c == '_' || c == '~') {
        b.append((char) c);
      } else {
        b.append('%').append(HEX[c >> 4]).append(HEX[c & 15]);
      }
    }
    return b.toString();
  }

  private static String decode(String s, boolean plusIsSpace) throws HttpFailure {
    if (s.indexOf('%') < 0 && !(plusIsSpace && s.indexOf('+') >= 0)) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        int hi = i + 2 < s.length() ? Character.digit(s.charAt(i + 1), 16) : -1;
        int lo = hi >= 0 ? Character.digit(s.charAt(i + 2), 16) : -1;
        if (lo < 0) {
          throw HttpFailure.badRequest("bad percent-escape in \"" + Messages.shorten(s) + "\": '%' must be followed"
              + " by two hex digits");
        }
        out.write(hi * 16 + lo);
        i += 2;
      } else if (c == '+' && plusIsSpace) {
        out.write(' ');
      } else {
        byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        if (Character.isHighSurrogate(c) && i + 1 < s.length()) {
          utf8 = s.substring(i, i + 2).getBytes(StandardCharsets.UTF_8);
          i++;
        }
        out.writeBytes(utf8);
      }
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(out.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw HttpFailure.badRequest("\"" + Messages.shorten(s) + "\" does not percent-decode to UTF-8 text");
    }
  }
}
