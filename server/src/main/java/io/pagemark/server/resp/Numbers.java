package io.pagemark.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/** Numbers in request arguments, read exactly as Redis reads them ({@code string2ll}, {@code strtod}). */
final class Numbers {
  /** What C's strtod accepts, whole (hexadecimal floats aside); NaN is rejected by the caller as Redis does. */
  private static final Pattern FLOAT = Pattern.compile(
      "[ \\t\\n\\x0B\\f\\r]*[+-]?(?:(?i:inf|infinity)|(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?)");

  private Numbers() {}

  /**
   * A signed 64-bit integer written as Redis's {@code string2ll} wants it: no sign but '-', no leading zeros, no
   * spaces; null otherwise (so a zero-padded {@code 000123} is not a number, as in Redis).
   */
  static Long parseLong(byte[] b) {
    int n = b.length;
    if (n == 0 || n > 20) {
      return null;
    }
    if (n == 1 && b[0] == '0') {
      return 0L;
    }
    int i = 0;
    boolean negative = false;
    if (b[0] == '-') {
      negative = true;
      i = 1;
      if (n == 1) {
        return null;
      }
    }
    if (b[i] < '1' || b[i] > '9') {
      return null;
    }
    long v = 0; // accumulated negatively, so that Long.MIN_VALUE fits
    for (; i < n; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        return null;
      }
      if (v < (Long.MIN_VALUE + d) / 10) {
        return null;
      }
      v = v * 10 - d;
    }
    if (!negative) {
      if (v == Long.MIN_VALUE) {
        return null;
      }
      return -v;
    }
    return v;
  }

  /** A double as Redis's {@code strtod} check reads it; null when it is not one (or is NaN). */
  static Double parseDouble(byte[] b, int from) {
    String s = new String(b, from, b.length - from, StandardCharsets.ISO_8859_1);
    if (s.isBlank()) {
      return s.isEmpty() ? 0.0 : null; // strtod of "" consumes nothing and ends at the terminator
    }
    if (!FLOAT.matcher(s).matches()) {
      return null;
    }
    String t = s.strip().toLowerCase(java.util.Locale.ROOT).replace("infinity", "inf");
    if (t.endsWith("inf")) {
      return t.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    return Double.parseDouble(t);
  }

  /** A score range, {@code (} marking an exclusive end, as {@code ZRANGEBYSCORE} takes it. */
  record ScoreRange(double min, boolean minExclusive, double max, boolean maxExclusive) {
    /** The lowest whole rank in the range (may lie below 0). */
    long lowestRank() {
      return (long) (minExclusive ? Math.floor(min) + 1 : Math.ceil(min));
    }

    /** The highest whole rank in the range (may lie above the last rank). */
    long highestRank() {
      return (long) (maxExclusive ? Math.ceil(max) - 1 : Math.floor(max));
    }
  }

  /** The range of two arguments, or null when either is not a float. */
  static ScoreRange scoreRange(byte[] min, byte[] max) {
    boolean minEx = min.length > 0 && min[0] == '(';
    boolean maxEx = max.length > 0 && max[0] == '(';
    Double lo = parseDouble(min, minEx ? 1 : 0);
    Double hi = parseDouble(max, maxEx ? 1 : 0);
    if (lo == null || hi == null) {
      return null;
    }
    return new ScoreRange(lo, minEx, hi, maxEx);
  }

  /** Whether an argument is a score {@code ZADD} accepts (it is then ignored). */
  static boolean isScore(byte[] b) {
    return b.length > 0 && parseDouble(b, 0) != null;
  }
}
