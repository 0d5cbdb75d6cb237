package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * Demo-like index entries made from a number alone, so that a Beam build and the text baseline see the same tuples
 * without storing them: entry {@code i} belongs to the hot group when {@code i < hotEntries}, else to one of the
 * other groups in turn; its sort key is a datetime drawn from a hash of {@code i} (so some collide, as bulk imports
 * do) and its table key is unique. The key schema is the demo table's ({@code PK2} group, {@code SK} sort key,
 * {@code PK} table key).
 *
 * @param entries how many entries
 * @param groups how many groups, the hot one included
 * @param hotEntries how many entries the hot group (group 0) has
 */
public record SyntheticEntries(long entries, int groups, long hotEntries) implements Serializable {
  private static final long serialVersionUID = 1L;
  /** The first second of the span the sort keys are drawn from (a midnight). */
  static final long BASE_SECONDS = Instant.parse("2024-01-01T00:00:00Z").getEpochSecond();
  private static final byte[] GROUP_PREFIX = "SKU-".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TABLE_PREFIX = "comment-".getBytes(StandardCharsets.US_ASCII);
  /** How many seconds the span holds (whole days). */
  static final long SPAN_SECONDS = Instant.parse("2026-11-01T00:00:00Z").getEpochSecond() - BASE_SECONDS;
  /** Room for an entry's three keys: a group key of up to 14 bytes, a sort key of 20, a table key of up to 27. */
  static final int ENTRY_SCRATCH = 64;
  /** 10<sup>k</sup> at {@code k}, for {@code k} from 0 to 18: a long has at most 19 digits. */
  private static final long[] POWERS_OF_TEN = new long[19];
  /** {@code "00"} to {@code "99"}, two ASCII digits each. */
  private static final byte[] DIGIT_PAIRS = new byte[200];
  /** What {@code "YYYY-MM-DDT"} takes. */
  private static final int DAY_PREFIX = 11;
  /** {@code "YYYY-MM-DDT"} of each day of the span, one after another. */
  private static final byte[] SPAN_DAYS = new byte[(int) (SPAN_SECONDS / 86_400) * DAY_PREFIX];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int k = 1; k < POWERS_OF_TEN.length; k++) {
      POWERS_OF_TEN[k] = POWERS_OF_TEN[k - 1] * 10;
    }
    for (int n = 0; n < 100; n++) {
      DIGIT_PAIRS[2 * n] = (byte) ('0' + n / 10);
      DIGIT_PAIRS[2 * n + 1] = (byte) ('0' + n % 10);
    }
    for (int day = 0; day < SPAN_DAYS.length / DAY_PREFIX; day++) {
      System.arraycopy(isoSecondsBytes(BASE_SECONDS + day * 86_400L), 0, SPAN_DAYS, day * DAY_PREFIX, DAY_PREFIX);
    }
  }

  public SyntheticEntries {
    if (entries < 1 || groups < 1 || hotEntries < 0 || hotEntries > entries) {
      throw new IllegalArgumentException(
          "need entries >= 1, groups >= 1 and 0 <= hotEntries <= entries, not " + entries + ", " + groups + ", "
              + hotEntries);
    }
    if (groups == 1 && hotEntries != entries) {
      throw new IllegalArgumentException("with one group every entry is in the hot group");
    }
  }

  /** The demo table's key schema: group {@code PK2}, sort key {@code SK}, table key ({@code PK}, {@code SK}). */
  public static KeySchema schema() {
    return new KeySchema(
        "comments", "byProduct", "PK2", KeyType.S,
        List.of(
            new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
        "PK", "SK");
  }

  /** The group key of the hot group. */
  public static String hotGroup() {
    return groupKey(0);
  }

  public int groupOf(long i) {
    return i < hotEntries ? 0 : 1 + (int) ((i - hotEntries) % (groups - 1));
  }

  public static String groupKey(int g) {
    byte[] b = new byte[ENTRY_SCRATCH];
    return text(b, putPadded(b, 0, GROUP_PREFIX, g, 5));
  }

  /**
   * A datetime as {@link Instant#toString()} writes it ({@code 2025-03-07T09:41:02Z}), formatted by hand: the source
   * makes one per entry, and the JDK's formatter would make the bench's own source a large share of a build's time
   * (a table read does not format datetimes).
   */
  public static String sortKey(long i) {
    byte[] b = new byte[ENTRY_SCRATCH];
    return text(b, putSortKey(b, 0, i));
  }

  /** The datetime of entry {@code i}'s sort key: {@link #sortKey} is {@code isoSeconds(sortKeySeconds(i))}. */
  static long sortKeySeconds(long i) {
    return BASE_SECONDS + Math.floorMod(mix(i), SPAN_SECONDS);
  }

  /** Writes entry {@code i}'s sort key at {@code at}; returns where it ends. */
  private static int putSortKey(byte[] b, int at, long i) {
    return putSpanSeconds(b, at, Math.floorMod(mix(i), SPAN_SECONDS));
  }

  /**
   * Writes {@code isoSeconds(BASE_SECONDS + offset)} at {@code at} ({@code 0 <= offset < SPAN_SECONDS}); returns where
   * it ends. The date comes from a table of the span's days, the time of day two digits at a time: no division by
   * ten per digit, no civil-date arithmetic per entry.
   */
  static int putSpanSeconds(byte[] b, int at, long offset) {
    int day = (int) (offset / 86_400);
    int second = (int) (offset - day * 86_400L);
    System.arraycopy(SPAN_DAYS, day * DAY_PREFIX, b, at, DAY_PREFIX);
    int p = at + DAY_PREFIX;
    putPair(b, p, second / 3600);
    b[p + 2] = ':';
    putPair(b, p + 3, second / 60 % 60);
    b[p + 5] = ':';
    putPair(b, p + 6, second % 60);
    b[p + 8] = 'Z';
    return p + 9;
  }

  /** {@code Instant.ofEpochSecond(seconds).toString()} for the years 0 to 9999. */
  static String isoSeconds(long seconds) {
    byte[] b = isoSecondsBytes(seconds);
    return text(b, b.length);
  }

  /**
   * {@link #isoSeconds} as ASCII bytes. The civil date comes from the day number by arithmetic over 400-year eras
   * that start on March 1st (so that a leap day ends its year), with no {@code LocalDate} made per entry.
   */
  private static byte[] isoSecondsBytes(long seconds) {
    long day = Math.floorDiv(seconds, 86_400);
    int second = (int) Math.floorMod(seconds, 86_400);
    long shifted = day + 719_468; // days from 0000-03-01 to 1970-01-01
    long era = Math.floorDiv(shifted, 146_097);
    int dayOfEra = (int) (shifted - era * 146_097);
    int yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    int dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    int marchMonth = (5 * dayOfYear + 2) / 153; // 0 is March, 11 is February
    int dayOfMonth = dayOfYear - (153 * marchMonth + 2) / 5 + 1;
    int month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
    long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    byte[] b = {'0', '0', '0', '0', '-', '0', '0', '-', '0', '0', 'T', '0', '0', ':', '0', '0', ':', '0', '0', 'Z'};
    putDigits(b, 0, year, 4);
    putDigits(b, 5, month, 2);
    putDigits(b, 8, dayOfMonth, 2);
    putDigits(b, 11, second / 3600, 2);
    putDigits(b, 14, second / 60 % 60, 2);
    putDigits(b, 17, second % 60, 2);
    return b;
  }

  public static String tableKey(long i) {
    byte[] b = new byte[ENTRY_SCRATCH];
    return text(b, putPadded(b, 0, TABLE_PREFIX, i, 10));
  }

  /**
   * Entry {@code i}. Each key value is new (as a table read makes them), its bytes written straight from the entry
   * number: no text is formatted and no string encoded, so that the source hands a build its entries about as cheaply
   * as a file hands {@code sort} its lines.
   */
  public IndexEntry entry(long i) {
    return entry(i, new byte[ENTRY_SCRATCH]);
  }

  /**
   * {@link #entry(long)}, its keys' bytes written in {@code scratch} (at least {@value #ENTRY_SCRATCH} bytes, reused
   * by the caller from one entry to the next) and copied once, into each key value.
   */
  IndexEntry entry(long i, byte[] scratch) {
    int group = putPadded(scratch, 0, GROUP_PREFIX, groupOf(i), 5);
    int sort = putSortKey(scratch, group, i);
    int table = putPadded(scratch, sort, TABLE_PREFIX, i, 10);
    return new IndexEntry(KeyValue.of(KeyType.S, scratch, 0, group),
        List.of(KeyValue.of(KeyType.S, scratch, group, sort), KeyValue.of(KeyType.S, scratch, sort, table)));
  }

  /** Entry {@code i} as one line of text, fields in the order the index orders them: group, sort key, table key. */
  public String line(long i) {
    return groupKey(groupOf(i)) + '\t' + sortKey(i) + '\t' + tableKey(i);
  }

  /** The bytes of the key values an entry stores (sort key and table key), without any framing. */
  public static int keyBytes(long i) {
    return sortKey(i).length() + tableKey(i).length();
  }

  private static String text(byte[] ascii, int length) {
    return new String(ascii, 0, length, StandardCharsets.ISO_8859_1);
  }

  /**
   * Writes {@code prefix} (ASCII) then {@code n} (not negative) in decimal, zero-padded to at least {@code width}
   * digits, at {@code at}; returns where it ends.
   */
  private static int putPadded(byte[] b, int at, byte[] prefix, long n, int width) {
    int length = width;
    while (length < POWERS_OF_TEN.length && n >= POWERS_OF_TEN[length]) {
      length++;
    }
    System.arraycopy(prefix, 0, b, at, prefix.length);
    putDigits(b, at + prefix.length, n, length);
    return at + prefix.length + length;
  }

  /**
   * Writes {@code value} as {@code width} decimal digits at {@code at} (leading digits beyond it are dropped), two at
   * a time.
   */
  private static void putDigits(byte[] b, int at, long value, int width) {
    int p = at + width;
    for (; p - 2 >= at; p -= 2) {
      putPair(b, p - 2, (int) (value % 100));
      value /= 100;
    }
    if (p > at) {
      b[at] = (byte) ('0' + value % 10);
    }
  }

  /** Writes {@code n} (0 to 99) as two digits at {@code at}. */
  private static void putPair(byte[] b, int at, int n) {
    b[at] = DIGIT_PAIRS[2 * n];
    b[at + 1] = DIGIT_PAIRS[2 * n + 1];
  }

  /** SplitMix64's finalizer: a well-spread hash of the entry number. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
