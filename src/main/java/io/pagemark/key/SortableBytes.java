package io.pagemark.key;

import java.io.ByteArrayOutputStream;

/**
 * Order-preserving byte encodings of key values: for two values of one type, the unsigned lexicographic order of
 * their encodings is DynamoDB's order of the values. Strings encode as their UTF-8 bytes and binaries as themselves;
 * numbers as described in docs/order.md ("Number encoding"): a sign byte, a biased exponent and one byte per digit,
 * with negative numbers' bytes complemented so that larger magnitudes sort first.
 */
public final class SortableBytes {
  private static final int SIGN_NEGATIVE = 0x40;
  private static final int SIGN_ZERO = 0x80;
  private static final int SIGN_POSITIVE = 0xC0;
  private static final int EXPONENT_BIAS = 0x8000;

  private SortableBytes() {}

  /** The order-preserving encoding of a number given as DynamoDB decimal text. */
  public static byte[] encodeNumber(String text) {
    return encodeNumber(DynamoNumber.parse(text));
  }

  static byte[] encodeNumber(DynamoNumber n) {
    if (n.signum == 0) {
      return new byte[] {(byte) SIGN_ZERO};
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(4 + n.digits.length());
    int flip = n.signum < 0 ? 0xFF : 0x00;
    out.write(n.signum < 0 ? SIGN_NEGATIVE : SIGN_POSITIVE);
    int e = n.exponent + EXPONENT_BIAS;
    out.write(((e >>> 8) & 0xFF) ^ flip);
    out.write((e & 0xFF) ^ flip);
    for (int i = 0; i < n.digits.length(); i++) {
      // digits 0..9 become 1..10 so that the terminator 0 sorts below every digit: 0.5 < 0.51
      out.write((n.digits.charAt(i) - '0' + 1) ^ flip);
    }
    out.write(flip);
    return out.toByteArray();
  }
}
