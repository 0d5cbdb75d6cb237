package io.pagemark.format;


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
    int year = twoDigits(b, from) * 100 + twoDigits(b, from + 2);
    int month = twoDigits(b, from + 5);
    int day = twoDigits(b, from + 8);
    int hour = twoDigits(b, from + 11);
    int minute = twoDigits(b, from + 14);
    int second = twoDigits(b, from + 17);
    int milli = millis ? digit(b, from + 20) * 100 + twoDigits(b, from + 21) : 0;
    if (year < 0 || month < 1 || month > 12 || day < 1 || day > lengthOfMonth(year, month) || hour < 0 || hour > 23
        || minute < 0 || minute > 59 || second < 0 || second > 59 || milli < 0) {
      return NOT_A_DATETIME;
    }
    long s = epochDay(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    return millis ? s * 1000 + milli : s;
  }

  /** Days in a month of the proleptic Gregorian calendar. */
  static int lengthOfMonth(int year, int month) {
    if (month == 2) {
      boolean leap = (year & 3) == 0 && (year % 100 != 0 || year % 400 == 0);
      return leap ? 29 : 28;
    }
    return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
  }

  /**
   * Days since 1970-01-01 of a valid date (the inverse of {@link #format}'s civil date, eras of 400 years from
   * March 1st), without allocating: a writer parses one per record while it learns a column.
   */
  static long epochDay(int year, int month, int day) {
    long y = month <= 2 ? year - 1 : year;
    long era = Math.floorDiv(y, 400);
    long yoe = y - era * 400;
    long mp = month > 2 ? month - 3 : month + 9;
    long doy = (153 * mp + 2) / 5 + day - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146_097 + doe - 719_468;
  }

  /** Writes the text of an instant in years 0000-9999 into {@code t} at {@code at} (20 or 24 bytes). */
  static void format(long value, boolean millis, byte[] t, int at) {
    long s = millis ? Math.floorDiv(value, 1000) : value;
    long days = Math.floorDiv(s, 86_400);
    int secondOfDay = (int) Math.floorMod(s, 86_400);
    // civil date from days since 1970-01-01 (proleptic Gregorian, eras of 400 years), without allocating
    long z = days + 719_468;
    long era = Math.floorDiv(z, 146_097);
    long doe = z - era * 146_097;
    long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    int day = (int) (doy - (153 * mp + 2) / 5 + 1);
    int month = (int) (mp < 10 ? mp + 3 : mp - 9);
    int year = (int) (yoe + era * 400 + (month <= 2 ? 1 : 0));
    put(t, at, year, 4);
    t[at + 4] = '-';
    put(t, at + 5, month, 2);
    t[at + 7] = '-';
    put(t, at + 8, day, 2);
    t[at + 10] = 'T';
    put(t, at + 11, secondOfDay / 3600, 2);
    t[at + 13] = ':';
    put(t, at + 14, secondOfDay / 60 % 60, 2);
    t[at + 16] = ':';
    put(t, at + 17, secondOfDay % 60, 2);
    if (millis) {
      t[at + 19] = '.';
      put(t, at + 20, (int) Math.floorMod(value, 1000), 3);
    }
    t[at + (millis ? 23 : 19)] = 'Z';
  }

  /**
   * What a field is when a byte of it is not a digit: so negative that the field stays negative whatever the digits
   * beside it add (at most 9,999, times 100 for a year's first two).
   */
  private static final int NOT_DIGITS = -(1 << 24);

  /** The digit at {@code b[at]}, or {@link #NOT_DIGITS}: one test of the bits of it and of nine minus it. */
  private static int digit(byte[] b, int at) {
    int d = b[at] - '0';
    return (d | (9 - d)) < 0 ? NOT_DIGITS : d;
  }

  /** The two digits at {@code b[at]} as a number, or {@link #NOT_DIGITS}. */
  private static int twoDigits(byte[] b, int at) {
    int hi = b[at] - '0';
    int lo = b[at + 1] - '0';
    return (hi | lo | (9 - hi) | (9 - lo)) < 0 ? NOT_DIGITS : hi * 10 + lo;
  }

  private static void put(byte[] t, int at, int v, int n) {
    for (int i = at + n - 1; i >= at; i--) {
      t[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
  }
}
