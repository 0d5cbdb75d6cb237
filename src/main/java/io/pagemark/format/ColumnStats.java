package io.pagemark.format;

import java.util.Arrays;

/**
 * What a version-2 writer learns about one stored attribute while the group's records are appended, in constant
 * memory (a few values, not the column): enough to choose the narrowest {@link ColumnCodec} that round-trips every
 * value it saw.
 */
final class ColumnStats {
  private long count;
  private byte[] prefix; // the first value; its first prefixLength bytes are shared by every value so far
  private int prefixLength;
  private int minLength = Integer.MAX_VALUE;
  private int maxLength;
  private int minTrailingDigits = Integer.MAX_VALUE;
  private int minTrailingSymbols = Integer.MAX_VALUE; // of Alphabet64
  private byte[] min; // in unsigned byte order
  private byte[] max;
  private boolean seconds = true;
  private boolean millis = true;
  private long minTime = Long.MAX_VALUE;
  private long maxTime = Long.MIN_VALUE;

  void add(byte[] v) {
    add(v, 0, v.length);
  }

  void add(byte[] b, int from, int n) {
    if (count++ == 0) {
      prefix = Arrays.copyOfRange(b, from, from + n);
      prefixLength = n;
      min = prefix;
      max = prefix;
    } else {
      int same = Arrays.mismatch(prefix, 0, prefixLength, b, from, from + Math.min(n, prefixLength));
      if (same >= 0) {
        prefixLength = same;
      }
      if (Arrays.compareUnsigned(b, from, from + n, min, 0, min.length) < 0) {
        min = Arrays.copyOfRange(b, from, from + n);
      } else if (Arrays.compareUnsigned(b, from, from + n, max, 0, max.length) > 0) {
        max = Arrays.copyOfRange(b, from, from + n);
      }
    }
    minLength = Math.min(minLength, n);
    maxLength = Math.max(maxLength, n);
    int digits = 0;
    while (digits < n && b[from + n - 1 - digits] >= '0' && b[from + n - 1 - digits] <= '9') {
      digits++;
    }
    minTrailingDigits = Math.min(minTrailingDigits, digits);
    int symbols = 0;
    while (symbols < n && Alphabet64.isSymbol(b[from + n - 1 - symbols])) {
      symbols++;
    }
    minTrailingSymbols = Math.min(minTrailingSymbols, symbols);
    seconds = seconds && time(b, from, n, false);
    millis = millis && time(b, from, n, true);
  }

  private boolean time(byte[] b, int from, int n, boolean ms) {
    long t = Datetimes.parse(b, from, n, ms);
    if (t == Datetimes.NOT_A_DATETIME) {
      return false;
    }
    minTime = Math.min(minTime, t);
    maxTime = Math.max(maxTime, t);
    return true;
  }

  /** The narrowest codec for every value added (docs/format-v2.md, "Column codecs"). */
  ColumnCodec choose() {
    if (count == 0) {
      return new ColumnCodec(ColumnCodec.VAR, new byte[0], 0, 1, 0);
    }
    byte[] shared = Arrays.copyOf(prefix, prefixLength);
    ColumnCodec best = null;
    if (seconds || millis) {
      best = new ColumnCodec(seconds ? ColumnCodec.DATETIME_S : ColumnCodec.DATETIME_MS, new byte[0], 0,
          ColumnCodec.bytesFor(maxTime - minTime), minTime);
    }
    int suffix = maxLength - prefixLength;
    if (minLength == maxLength && suffix >= 1 && suffix <= 18 && suffix <= minTrailingDigits) {
      long lo = number(min, prefixLength);
      long hi = number(max, prefixLength);
      best = narrower(best, new ColumnCodec(ColumnCodec.DIGITS, shared, suffix, ColumnCodec.bytesFor(hi - lo), lo));
    }
    if (minLength == maxLength && suffix >= 1 && suffix <= minTrailingSymbols) {
      best = narrower(best, new ColumnCodec(ColumnCodec.ALPHA64, shared, suffix, (6 * suffix + 7) / 8, 0));
    }
    if (minLength == maxLength) {
      best = narrower(best, new ColumnCodec(ColumnCodec.FIXED, shared, suffix, 0, 0));
    }
    return narrower(best, new ColumnCodec(ColumnCodec.VAR, shared, suffix, suffix <= 0xFF ? 1 : 2, 0));
  }

  private static ColumnCodec narrower(ColumnCodec best, ColumnCodec candidate) {
    return best == null || candidate.slotWidth() < best.slotWidth() ? candidate : best;
  }

  private static long number(byte[] v, int from) {
    long n = 0;
    for (int i = from; i < v.length; i++) {
      n = n * 10 + (v[i] - '0');
    }
    return n;
  }
}
