package io.pagemark.format;

import java.io.Serializable;
import java.util.Arrays;

/**
 * What a version-2 writer learns about one stored attribute while the group's records are appended, in constant
 * memory (a few values, not the column): enough to choose the narrowest {@link ColumnCodec} that round-trips every
 * value it saw.
 */
final class ColumnStats implements Serializable {
  private static final long serialVersionUID = 1L;

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
  /**
   * Each value's time in the order added, while every value so far is a datetime, when the writer asked for them
   * ({@link #rememberTimes}); else null. Not serialized: it serves the writer that learned it.
   */
  private transient long[] times;

  /**
   * Keeps the time of each of the next {@code values} values while they are all datetimes, so that the writer that
   * encodes them right after learning them parses each once, not twice ({@link #times}). Only before any value is
   * added.
   */
  void rememberTimes(int values) {
    if (count == 0) {
      times = new long[values];
    }
  }

  /**
   * The time of every value added, in order, if {@link #rememberTimes} was asked for at least as many values and
   * every value is a datetime (in seconds if {@link #choose} picks {@link ColumnCodec#DATETIME_S}, else in
   * milliseconds); else null.
   */
  long[] times() {
    return (seconds || millis) && times != null && count == times.length ? times : null;
  }

  /** Lets go of the kept times ({@link #rememberTimes}): what was learned stays. */
  void forgetTimes() {
    times = null;
  }

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
      // the maximum first: a sorted column (every group's sort key) raises it at every value, and a value above the
      // maximum cannot be below the minimum
      if (Arrays.compareUnsigned(b, from, from + n, max, 0, max.length) > 0) {
        max = replace(max, b, from, n);
      } else if (Arrays.compareUnsigned(b, from, from + n, min, 0, min.length) < 0) {
        min = replace(min, b, from, n);
      }
    }
    minLength = Math.min(minLength, n);
    maxLength = Math.max(maxLength, n);
    // trailing digits and symbols are counted only up to the least seen so far: more would not change it
    int digits = 0;
    int digitsBound = Math.min(n, minTrailingDigits);
    while (digits < digitsBound && b[from + n - 1 - digits] >= '0' && b[from + n - 1 - digits] <= '9') {
      digits++;
    }
    minTrailingDigits = digits;
    int symbols = 0;
    int symbolsBound = Math.min(n, minTrailingSymbols);
    while (symbols < symbolsBound && Alphabet64.isSymbol(b[from + n - 1 - symbols])) {
      symbols++;
    }
    minTrailingSymbols = symbols;
    seconds = seconds && time(b, from, n, false);
    millis = millis && time(b, from, n, true);
  }

  /**
   * {@code b[from..from + n)} in {@code old}'s place: written over {@code old} when it has that length and is this
   * object's own (sorted values raise the maximum at every record; a copy each time was most of what learning a
   * column allocated), else a new array.
   */
  private byte[] replace(byte[] old, byte[] b, int from, int n) {
    if (old.length != n || old == prefix) {
      return Arrays.copyOfRange(b, from, from + n);
    }
    System.arraycopy(b, from, old, 0, n);
    return old;
  }

  /**
   * What is learned from this attribute's values followed by {@code next}'s: the same as one object that was given
   * them all in that order (the shared prefix starts at the first value; the rest are minimums, maximums and
   * conjunctions). Neither is changed.
   */
  ColumnStats then(ColumnStats next) {
    if (next.count == 0) {
      return copy();
    }
    if (count == 0) {
      return next.copy();
    }
    ColumnStats s = copy();
    s.count += next.count;
    int same = Arrays.mismatch(prefix, 0, prefixLength, next.prefix, 0, Math.min(next.prefixLength, prefixLength));
    if (same >= 0) {
      s.prefixLength = same;
    }
    if (Arrays.compareUnsigned(next.min, min) < 0) {
      s.min = next.min.clone();
    }
    if (Arrays.compareUnsigned(next.max, max) > 0) {
      s.max = next.max.clone();
    }
    s.minLength = Math.min(minLength, next.minLength);
    s.maxLength = Math.max(maxLength, next.maxLength);
    s.minTrailingDigits = Math.min(minTrailingDigits, next.minTrailingDigits);
    s.minTrailingSymbols = Math.min(minTrailingSymbols, next.minTrailingSymbols);
    s.seconds = seconds && next.seconds;
    s.millis = millis && next.millis;
    s.minTime = Math.min(minTime, next.minTime);
    s.maxTime = Math.max(maxTime, next.maxTime);
    return s;
  }

  /** A copy (the prefix is shared, never written to; the minimum and maximum are the copy's own). */
  private ColumnStats copy() {
    ColumnStats c = new ColumnStats();
    c.count = count;
    c.prefix = prefix;
    c.prefixLength = prefixLength;
    c.minLength = minLength;
    c.maxLength = maxLength;
    c.minTrailingDigits = minTrailingDigits;
    c.minTrailingSymbols = minTrailingSymbols;
    c.min = min == null ? null : min.clone();
    c.max = max == null ? null : max.clone();
    c.seconds = seconds;
    c.millis = millis;
    c.minTime = minTime;
    c.maxTime = maxTime;
    return c;
  }

  private boolean time(byte[] b, int from, int n, boolean ms) {
    long t = Datetimes.parse(b, from, n, ms);
    if (t == Datetimes.NOT_A_DATETIME) {
      return false;
    }
    minTime = Math.min(minTime, t);
    maxTime = Math.max(maxTime, t);
    if (times != null) {
      // a value is either text, never both: at most one of the two calls per value gets here
      if (count <= times.length) {
        times[(int) (count - 1)] = t;
      } else {
        times = null; // more values than asked for
      }
    }
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
