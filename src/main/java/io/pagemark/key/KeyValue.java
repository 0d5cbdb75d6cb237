package io.pagemark.key;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;

/**
 * One typed key attribute value as DynamoDB stores it: a string (its UTF-8 bytes), a number (the decimal text
 * DynamoDB returned, validated) or a binary. Values compare in DynamoDB's own key order via {@link #ORDER}; the
 * bytes are copied in and out, so a value is immutable.
 */
public final class KeyValue implements Comparable<KeyValue> {
  /** DynamoDB's ascending key order for values of one type; across types it orders by type (S, N, B). */
  public static final Comparator<KeyValue> ORDER = KeyValue::compareTo;

  private final KeyType type;
  private final byte[] bytes;
  private final DynamoNumber number; // non-null for N only

  private KeyValue(KeyType type, byte[] bytes, DynamoNumber number) {
    this.type = type;
    this.bytes = bytes;
    this.number = number;
  }

  /** A string value. */
  public static KeyValue ofString(String s) {
    return new KeyValue(KeyType.S, s.getBytes(StandardCharsets.UTF_8), null);
  }

  /**
   * A number value from its decimal text; throws {@link IllegalArgumentException} when the text is not a number
   * DynamoDB accepts (more than 38 significant digits, exponent out of range, not decimal).
   */
  public static KeyValue ofNumber(String text) {
    DynamoNumber n = DynamoNumber.parse(text);
    return new KeyValue(KeyType.N, text.getBytes(StandardCharsets.UTF_8), n);
  }

  /** A binary value (copied). */
  public static KeyValue ofBinary(byte[] b) {
    return new KeyValue(KeyType.B, b.clone(), null);
  }

  /** A value from a type and the bytes the index format stores for it (UTF-8 text for S and N). */
  public static KeyValue of(KeyType type, byte[] stored) {
    switch (type) {
      case S:
        return new KeyValue(KeyType.S, stored.clone(), null);
      case N:
        return ofNumber(new String(stored, StandardCharsets.UTF_8));
      case B:
        return ofBinary(stored);
      default:
        throw new AssertionError(type);
    }
  }

  /**
   * A value from a type and the stored bytes {@code b[from..to)} (copied once): what {@link #of(KeyType, byte[])}
   * gives for that range, for readers of encoded blocks.
   */
  public static KeyValue of(KeyType type, byte[] b, int from, int to) {
    switch (type) {
      case S:
        return new KeyValue(KeyType.S, Arrays.copyOfRange(b, from, to), null);
      case N:
        return ofNumber(new String(b, from, to - from, StandardCharsets.UTF_8));
      case B:
        return new KeyValue(KeyType.B, Arrays.copyOfRange(b, from, to), null);
      default:
        throw new AssertionError(type);
    }
  }

  /**
   * Parses a value given on a command line: text for S, decimal text for N, base64 for B. Throws
   * {@link IllegalArgumentException} with a message that names the problem.
   */
  public static KeyValue parse(KeyType type, String text) {
    switch (type) {
      case S:
        return ofString(text);
      case N:
        return ofNumber(text);
      case B:
        try {
          return ofBinary(Base64.getDecoder().decode(text));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("binary key \"" + text + "\" is not valid base64", e);
        }
      default:
        throw new AssertionError(type);
    }
  }

  public KeyType type() {
    return type;
  }

  /** The stored bytes (a copy): UTF-8 for S, decimal UTF-8 text for N, raw bytes for B. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Copies the stored bytes into {@code dst} at {@code at} (as {@link #bytes()} gives them, without a copy). */
  public void copyTo(byte[] dst, int at) {
    System.arraycopy(bytes, 0, dst, at, bytes.length);
  }

  /** Length of the stored bytes. */
  public int length() {
    return bytes.length;
  }

  /** Whether the stored bytes equal {@code other} (as {@link #bytes()} would, without a copy). */
  public boolean bytesEqual(byte[] other) {
    return Arrays.equals(bytes, other);
  }

  /** Whether the stored bytes equal {@code other[from..from + length)} (as {@link #bytesEqual(byte[])}, for a range). */
  public boolean bytesEqual(byte[] other, int from, int length) {
    return Arrays.equals(bytes, 0, bytes.length, other, from, from + length);
  }

  /** Adds the stored bytes to {@code checksum} (as {@link #bytes()} would give them, without a copy). */
  public void updateChecksum(java.util.zip.Checksum checksum) {
    checksum.update(bytes, 0, bytes.length);
  }

  /** The text of an S or N value; base64 for B. */
  public String text() {
    return type == KeyType.B
        ? Base64.getEncoder().encodeToString(bytes)
        : new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * The canonical, order-preserving encoding (see {@link SortableBytes}): equal for numerically equal numbers
   * written differently ("1.0" and "1"), and comparing as unsigned bytes exactly as DynamoDB orders the values.
   */
  public byte[] sortableBytes() {
    return type == KeyType.N ? SortableBytes.encodeNumber(number) : bytes.clone();
  }

  @Override
  public int compareTo(KeyValue o) {
    if (type != o.type) {
      return Integer.compare(type.code(), o.type.code());
    }
    if (type == KeyType.N) {
      return number.compareTo(o.number);
    }
    return Arrays.compareUnsigned(bytes, o.bytes);
  }

  /** Equal when DynamoDB would consider the keys equal (numbers by value). */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof KeyValue)) {
      return false;
    }
    KeyValue k = (KeyValue) o;
    return type == k.type && (type == KeyType.N ? number.equals(k.number) : Arrays.equals(bytes, k.bytes));
  }

  @Override
  public int hashCode() {
    return 31 * type.hashCode() + (type == KeyType.N ? number.hashCode() : Arrays.hashCode(bytes));
  }

  /** DynamoDB JSON, e.g. {@code {"S":"abc"}}. */
  @Override
  public String toString() {
    return Json.write(Json.of(this));
  }
}
