package io.pagemark.format;

import java.time.LocalDate;

/**
 * The two datetime texts of the version-2 codecs, {@code uuuu-MM-ddTHH:mm:ssZ} and {@code uuuu-MM-ddTHH:mm:ss.SSSZ}
 * (UTC, years 0000-9999), parsed and printed by hand: each text has exactly one instant and each instant exactly
 * one text, so a value that parses prints back to the same bytes. Lookups print one per record read, hence no
 * DateTimeFormatter.
 */
final class Datetimes {
  static final long NOT_A_DATETIME = Long.MIN_VALUE;

  private Datetimes() {}

  /**
   * Seconds (or milliseconds with {@code millis}) since the epoch of the text in {@code b[from, from + n)}, or
   * {@link #NOT_A_DATETIME} when it is not exactly the pattern or not a real date and time.
   */
  static long parse(byte[] b, int from, int n, boolean millis) {
    if (n != (millis ? 24 : 20) || b[from + 4] != '-' || b[from + 7] != '-' || b[from + 10] != 'T'
        || b[from + 13] != ':' || b[from + 16] != ':' || b[from + n - 1] != 'Z' || millis && b[from + 19] != '.') {
      return NOT_A_DATETIME;
    }
    int year = digits(b, from, 4);
    int month = digits(b, from + 5, 2);
    int day = digits(b, from + 8, 2);
    int hour = digits(b, from + 11, 2);
    int minute = digits(b, from + 14, 2);
    int second = digits(b, from + 17, 2);
    int milli = millis ? digits(b, from + 20, 3) : 0;
    if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59
        || second < 0 || second > 59 || milli < 0 || day > LocalDate.of(year, month, 1).lengthOfMonth()) {
      return NOT_A_DATETIME;
    }
    long s = LocalDate.of(year, month, day).toEpochDay() * 86_400 + hour * 3600 + minute * 60 + second;
    return millis ? s * 1000 + milli : s;
  }

  /** The text of an instant in years 0000-9999, as ASCII bytes. */
  static byte[] format(long value, boolean millis) {
    long s = millis ? Math.floorDiv(value, 1000) : value;
    long day = Math.floorDiv(s, 86_400);
    int secondOfDay = (int) Math.floorMod(s, 86_400);
    LocalDate d = LocalDate.ofEpochDay(day);
    byte[] t = new byte[millis ? 24 : 20];
    put(t, 0, d.getYear(), 4);
    t[4] = '-';
    put(t, 5, d.getMonthValue(), 2);
    t[7] = '-';
    put(t, 8, d.getDayOfMonth(), 2);
    t[10] = 'T';
    put(t, 11, secondOfDay / 3600, 2);
    t[13] = ':';
    put(t, 14, secondOfDay / 60 % 60, 2);
    t[16] = ':';
    put(t, 17, secondOfDay % 60, 2);
    if (millis) {
      t[19] = '.';
      put(t, 20, (int) Math.floorMod(value, 1000), 3);
    }
    t[t.length - 1] = 'Z';
    return t;
  }

  private static int digits(byte[] b, int from, int n) {
    int v = 0;
    for (int i = from; i < from + n; i++) {
      int c = b[i] - '0';
      if (c < 0 || c > 9) {
        return -1;
      }
      v = v * 10 + c;
    }
    return v;
  }

  private static void put(byte[] t, int at, int v, int n) {
    for (int i = at + n - 1; i >= at; i--) {
      t[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
  }
}
