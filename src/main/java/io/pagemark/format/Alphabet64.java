package io.pagemark.format;

import java.nio.ByteBuffer;

/**
 * The 64 characters of the ALPHA64 codec, {@code 0-9 A-Z a-z - _} in byte order, packed six bits each: a random
 * identifier of letters and digits (a UUID's hex, a base64url token) takes three quarters of its text.
 */
final class Alphabet64 {
  static final byte[] SYMBOLS =
      "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] CODES = new byte[256];

  static {
    java.util.Arrays.fill(CODES, (byte) -1);
    for (int i = 0; i < SYMBOLS.length; i++) {
      CODES[SYMBOLS[i]] = (byte) i;
    }
  }

  private Alphabet64() {}

  /** Whether byte {@code b} is one of the 64 characters. */
  static boolean isSymbol(byte b) {
    return CODES[b & 0xFF] >= 0;
  }

  /** Packs {@code n} characters of {@code b} from {@code from} into {@code k} bytes of {@code out}. */
  static void pack(byte[] b, int from, int n, ByteBuffer out, int k) {
    long bits = 0;
    int held = 0;
    int written = 0;
    for (int i = from; i < from + n; i++) {
      bits = (bits << 6) | CODES[b[i] & 0xFF];
      held += 6;
      if (held >= 8) {
        held -= 8;
        out.put((byte) (bits >>> held));
        written++;
      }
    }
    if (held > 0) {
      out.put((byte) (bits << (8 - held)));
      written++;
    }
    if (written != k) {
      throw new IllegalStateException("packed " + n + " characters into " + written + " bytes, not " + k);
    }
  }

  /** Unpacks {@code n} characters from {@code k} bytes of {@code in} into {@code v} at {@code at}. */
  static void unpack(ByteBuffer in, int k, byte[] v, int at, int n) {
    long bits = 0;
    int held = 0;
    int out = at;
    for (int i = 0; i < k; i++) {
      bits = (bits << 8) | (in.get() & 0xFF);
      held += 8;
      while (held >= 6 && out < at + n) {
        held -= 6;
        v[out++] = SYMBOLS[(int) (bits >>> held) & 0x3F];
      }
    }
    if ((bits & ((1L << held) - 1)) != 0) {
      throw new IllegalArgumentException("padding bits of a packed identifier are not zero");
    }
  }
}
