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
  private static final long BASE_SECONDS = Instant.parse("2024-01-01T00:00:00Z").getEpochSecond();
  private static final byte[] GROUP_PREFIX = "SKU-".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TABLE_PREFIX = "comment-".getBytes(StandardCharsets.US_ASCII);
  private static final long SPAN_SECONDS =
      Instant.parse("2026-11-01T00:00:00Z").getEpochSecond() - BASE_SECONDS;

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
    return text(groupKeyBytes(g));
  }

  private static byte[] groupKeyBytes(int g) {
    return padded(GROUP_PREFIX, g, 5);
  }

  /**
   * A datetime as {@link Instant#toString()} writes it ({@code 2025-03-07T09:41:02Z}), formatted by hand: the source
   * makes one per entry, and the JDK's formatter would make the bench's own source a large share of a build's time
   * (a table read does not format datetimes).
   */
  public static String sortKey(long i) {
    return text(sortKeyBytes(i));
  }

  private static byte[] sortKeyBytes(long i) {
    return isoSecondsBytes(BASE_SECONDS + Math.floorMod(mix(i), SPAN_SECONDS));
  }

  /** {@code Instant.ofEpochSecond(seconds).toString()} for the years 0 to 9999. */
  static String isoSeconds(long seconds) {
    return text(isoSecondsBytes(seconds));
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
    digits(b, 0, year, 4);
    digits(b, 5, month, 2);
    digits(b, 8, dayOfMonth, 2);
    digits(b, 11, second / 3600, 2);
    digits(b, 14, second / 60 % 60, 2);
    digits(b, 17, second % 60, 2);
    return b;
  }

  public static String tableKey(long i) {
    return text(tableKeyBytes(i));
  }

  private static byte[] tableKeyBytes(long i) {
    return padded(TABLE_PREFIX, i, 10);
  }

  /**
   * Entry {@code i}. Each key value is new (as a table read makes them), its bytes written straight from the entry
   * number: no text is formatted and no string encoded, so that the source hands a build its entries about as cheaply
   * as a file hands {@code sort} its lines.
   */
  public IndexEntry entry(long i) {
    return new IndexEntry(
        stringValue(groupKeyBytes(groupOf(i))),
        List.of(stringValue(sortKeyBytes(i)), stringValue(tableKeyBytes(i))));
  }

  /** Entry {@code i} as one line of text, fields in the order the index orders them: group, sort key, table key. */
  public String line(long i) {
    return groupKey(groupOf(i)) + '\t' + sortKey(i) + '\t' + tableKey(i);
  }

  /** The bytes of the key values an entry stores (sort key and table key), without any framing. */
  public static int keyBytes(long i) {
    return sortKey(i).length() + tableKey(i).length();
  }

  private static KeyValue stringValue(byte[] ascii) {
    return KeyValue.of(KeyType.S, ascii, 0, ascii.length);
  }

  private static String text(byte[] ascii) {
    return new String(ascii, StandardCharsets.ISO_8859_1);
  }

  /** {@code prefix} (ASCII) then {@code n} (not negative) in decimal, zero-padded to at least {@code width} digits. */
  private static byte[] padded(byte[] prefix, long n, int width) {
    int length = 1;
    for (long rest = n / 10; rest > 0; rest /= 10) {
      length++;
    }
    length = Math.max(length, width);
    byte[] b = java.util.Arrays.copyOf(prefix, prefix.length + length);
    digits(b, prefix.length, n, length);
    return b;
  }

  /** Writes {@code value} as {@code width} decimal digits at {@code at} (leading digits beyond it are dropped). */
  private static void digits(byte[] b, int at, long value, int width) {
    for (int p = at + width - 1; p >= at; p--) {
      b[p] = (byte) ('0' + value % 10);
      value /= 10;
    }
  }

  /** SplitMix64's finalizer: a well-spread hash of the entry number. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
