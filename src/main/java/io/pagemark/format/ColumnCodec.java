package io.pagemark.format;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How one stored key attribute of a version-2 group file is held in its record slot: a prefix every value shares
 * (stored once in the header) and a suffix encoded by one of the codecs of docs/format-v2.md. Decoding returns the
 * exact bytes that were encoded; a slot that holds an impossible value is reported as corrupt.
 */
record ColumnCodec(int code, byte[] prefix, int p, int k, long base) {
  static final int VAR = 1;
  static final int FIXED = 2;
  static final int DIGITS = 3;
  static final int DATETIME_S = 4;
  static final int DATETIME_MS = 5;
  static final int ALPHA64 = 6;

  /** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: the years the patterns print with four digits. */
  static final long MIN_SECOND = -62167219200L;
  static final long MAX_SECOND = 253402300799L;

  ColumnCodec {
    prefix = prefix.clone();
  }

  /** Checks the parameters read from a header; throws with what is wrong. */
  void check() {
    boolean ok = switch (code) {
      case VAR -> (k == 1 && p <= 0xFF || k == 2 && p <= 0xFFFF) && base == 0;
      case FIXED -> k == 0 && p >= 0 && p <= 0xFFFF && base == 0;
      case DIGITS -> p >= 1 && p <= 18 && k >= 0 && k <= 8 && base >= 0 && base <= MAX_DIGITS[p];
      case DATETIME_S -> p == 0 && k >= 0 && k <= 8 && base >= MIN_SECOND && base <= MAX_SECOND;
      case ALPHA64 -> p >= 1 && p <= 0xFFFF && k == (6 * p + 7) / 8 && base == 0;
      case DATETIME_MS -> p == 0 && k >= 0 && k <= 8 && base >= MIN_SECOND * 1000 && base <= MAX_SECOND * 1000 + 999;
      default -> false;
    };
    if (!ok || prefix.length > GroupFileFormat.MAX_VALUE_BYTES) {
      throw new IllegalArgumentException("bad column codec " + this);
    }
  }

  /** Bytes of the slot in a record. */
  int slotWidth() {
    return switch (code) {
      case VAR -> k + p;
      case FIXED -> p;
      default -> k; // DIGITS, DATETIME_S, DATETIME_MS, ALPHA64
    };
  }

  /** The longest value this column holds, for a version-1 record of the same values. */
  int longestValue() {
    return prefix.length + switch (code) {
      case VAR, FIXED, DIGITS, ALPHA64 -> p;
      case DATETIME_S -> 20;
      default -> 24;
    };
  }

  /**
   * Whether {@code v} has a slot in this codec: it begins with the prefix and its suffix is one this codec encodes
   * (a VAR suffix no longer than p, a DIGITS number within the base and k bytes, ...). A value that fits can be
   * encoded; the writer may still have chosen another codec for a set holding it (see {@link ColumnStats}).
   */
  boolean fits(byte[] v) {
    if (v.length < prefix.length || Arrays.mismatch(v, 0, prefix.length, prefix, 0, prefix.length) >= 0) {
      return false;
    }
    int at = prefix.length;
    int n = v.length - at;
    return switch (code) {
      case VAR -> n <= p;
      case FIXED -> n == p;
      case DIGITS -> {
        if (n != p) {
          yield false;
        }
        long x = 0;
        for (int i = at; i < v.length; i++) {
          if (v[i] < '0' || v[i] > '9') {
            yield false;
          }
          x = x * 10 + (v[i] - '0');
        }
        yield inSpan(x - base);
      }
      case DATETIME_S, DATETIME_MS -> {
        long t = Datetimes.parse(v, at, n, code == DATETIME_MS);
        yield t != Datetimes.NOT_A_DATETIME && t >= base && inSpan(t - base);
      }
      case ALPHA64 -> {
        if (n != p) {
          yield false;
        }
        for (int i = at; i < v.length; i++) {
          if (!Alphabet64.isSymbol(v[i])) {
            yield false;
          }
        }
        yield true;
      }
      default -> false;
    };
  }

  /** Whether an offset from the base fits the k bytes of the slot. */
  private boolean inSpan(long offset) {
    return offset >= 0 && (k == 8 || offset >>> (8 * k) == 0);
  }

  /** Writes the slot of {@code value}, which must be one of the values the codec was chosen for. */
  void encode(byte[] value, ByteBuffer out) {
    encode(value, 0, value.length, out);
  }

  /** Writes the slot of the value {@code b[from, from + length)}, one of the values the codec was chosen for. */
  void encode(byte[] b, int from, int length, ByteBuffer out) {
    int at = from + prefix.length;
    int n = length - prefix.length;
    switch (code) {
      case VAR -> {
        if (k == 1) {
          out.put((byte) n);
        } else {
          out.putShort((short) n);
        }
        out.put(b, at, n);
        out.position(out.position() + p - n);
      }
      case FIXED -> out.put(b, at, n);
      case DIGITS -> {
        long v = 0;
        for (int i = at; i < at + n; i++) {
          v = v * 10 + (b[i] - '0');
        }
        putUnsigned(out, v - base, k);
      }
      case DATETIME_S -> putUnsigned(out, Datetimes.parse(b, at, n, false) - base, k);
      case ALPHA64 -> Alphabet64.pack(b, at, n, out, k);
      default -> putUnsigned(out, Datetimes.parse(b, at, n, true) - base, k);
    }
  }

  /** Whether this codec stores datetimes ({@link #DATETIME_S} or {@link #DATETIME_MS}). */
  boolean isDatetime() {
    return code == DATETIME_S || code == DATETIME_MS;
  }

  /**
   * Writes the slot of a datetime value already parsed ({@link Datetimes#parse}, in this codec's unit): the slot
   * {@link #encode(byte[], int, int, ByteBuffer)} writes for its text.
   */
  void encodeTime(long time, ByteBuffer out) {
    if (!isDatetime()) {
      throw new IllegalStateException("not a datetime codec");
    }
    putUnsigned(out, time - base, k);
  }

  /** Reads a slot back into the value's bytes; throws IllegalArgumentException for an impossible slot. */
  byte[] decode(ByteBuffer in) {
    int suffix = switch (code) {
      case VAR -> k == 1 ? in.get(in.position()) & 0xFF : in.getShort(in.position()) & 0xFFFF;
      case DATETIME_S -> 20;
      case DATETIME_MS -> 24;
      default -> p;
    };
    byte[] v = new byte[prefix.length + suffix]; // a corrupt VAR length (at most 65,535) is refused by decodeInto
    decodeInto(in, v, 0);
    return v;
  }

  /**
   * Reads a slot back into the value's bytes at {@code v[at..]} (which has room for {@link #longestValue()} of
   * them) and returns the value's length; throws IllegalArgumentException for an impossible slot.
   */
  int decodeInto(ByteBuffer in, byte[] v, int at) {
    System.arraycopy(prefix, 0, v, at, prefix.length);
    int to = at + prefix.length;
    switch (code) {
      case VAR -> {
        int n = k == 1 ? in.get() & 0xFF : in.getShort() & 0xFFFF;
        if (n > p) {
          throw new IllegalArgumentException("value of " + n + " bytes in a slot of " + p);
        }
        in.get(v, to, n);
        in.position(in.position() + p - n);
        return prefix.length + n;
      }
      case FIXED -> in.get(v, to, p);
      case DIGITS -> {
        long n = base + getUnsigned(in, k);
        if (n < 0 || n > MAX_DIGITS[p]) {
          throw new IllegalArgumentException("number " + n + " has more than " + p + " digits");
        }
        for (int i = to + p - 1; i >= to; i--) {
          v[i] = (byte) ('0' + n % 10);
          n /= 10;
        }
      }
      case DATETIME_S -> {
        long t = base + getUnsigned(in, k);
        if (t < MIN_SECOND || t > MAX_SECOND) {
          throw new IllegalArgumentException("datetime " + t + " s is outside years 0000-9999");
        }
        Datetimes.format(t, false, v, to);
        return prefix.length + 20;
      }
      case ALPHA64 -> Alphabet64.unpack(in, k, v, to, p);
      default -> {
        long t = base + getUnsigned(in, k);
        if (t < MIN_SECOND * 1000 || t > MAX_SECOND * 1000 + 999) {
          throw new IllegalArgumentException("datetime " + t + " ms is outside years 0000-9999");
        }
        Datetimes.format(t, true, v, to);
        return prefix.length + 24;
      }
    }
    return prefix.length + p;
  }

  static final long[] MAX_DIGITS = new long[19];

  static {
    long m = 0;
    for (int i = 1; i <= 18; i++) {
      m = m * 10 + 9;
      MAX_DIGITS[i] = m;
    }
  }

  /** Bytes needed for {@code v} (an unsigned span, ≥ 0). */
  static int bytesFor(long v) {
    return v == 0 ? 0 : (64 - Long.numberOfLeadingZeros(v) + 7) / 8;
  }

  private static void putUnsigned(ByteBuffer out, long v, int k) {
    for (int i = k - 1; i >= 0; i--) {
      out.put((byte) (v >>> (8 * i)));
    }
  }

  private static long getUnsigned(ByteBuffer in, int k) {
    long v = 0;
    for (int i = 0; i < k; i++) {
      v = (v << 8) | (in.get() & 0xFF);
    }
    if (k == 8 && v < 0) {
      throw new IllegalArgumentException("span " + Long.toUnsignedString(v) + " overflows");
    }
    return v;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ColumnCodec c && c.code == code && Arrays.equals(c.prefix, prefix) && c.p == p && c.k == k
        && c.base == base;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(prefix) * 31 + code * 7 + p + k + Long.hashCode(base);
  }

  @Override
  public String toString() {
    return "codec " + code + " (prefix of " + prefix.length + " bytes, p " + p + ", k " + k + ", base " + base + ")";
  }
}
