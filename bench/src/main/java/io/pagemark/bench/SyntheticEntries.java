package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
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
    return padded("SKU-", g, 5);
  }

  /**
   * A datetime as {@link Instant#toString()} writes it ({@code 2025-03-07T09:41:02Z}), formatted by hand: the source
   * makes one per entry, and the JDK's formatter would make the bench's own source a large share of a build's time
   * (a table read does not format datetimes).
   */
  public static String sortKey(long i) {
    return isoSeconds(BASE_SECONDS + Math.floorMod(mix(i), SPAN_SECONDS));
  }

  /** {@code Instant.ofEpochSecond(seconds).toString()} for the years 0 to 9999. */
  static String isoSeconds(long seconds) {
    LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400));
    int second = (int) Math.floorMod(seconds, 86_400);
    byte[] b = {'0', '0', '0', '0', '-', '0', '0', '-', '0', '0', 'T', '0', '0', ':', '0', '0', ':', '0', '0', 'Z'};
    digits(b, 0, day.getYear(), 4);
    digits(b, 5, day.getMonthValue(), 2);
    digits(b, 8, day.getDayOfMonth(), 2);
    digits(b, 11, second / 3600, 2);
    digits(b, 14, second / 60 % 60, 2);
    digits(b, 17, second % 60, 2);
    return new String(b, StandardCharsets.ISO_8859_1);
  }

  public static String tableKey(long i) {
    return padded("comment-", i, 10);
  }

  /** Entry {@code i}. */
  public IndexEntry entry(long i) {
    return new IndexEntry(
        KeyValue.ofString(groupKey(groupOf(i))),
        List.of(KeyValue.ofString(sortKey(i)), KeyValue.ofString(tableKey(i))));
  }

  /** Entry {@code i} as one line of text, fields in the order the index orders them: group, sort key, table key. */
  public String line(long i) {
    return groupKey(groupOf(i)) + '\t' + sortKey(i) + '\t' + tableKey(i);
  }

  /** The bytes of the key values an entry stores (sort key and table key), without any framing. */
  public static int keyBytes(long i) {
    return sortKey(i).length() + tableKey(i).length();
  }

  /** {@code prefix} then {@code n} (not negative) in decimal, zero-padded to at least {@code width} digits. */
  private static String padded(String prefix, long n, int width) {
    int length = 1;
    for (long rest = n / 10; rest > 0; rest /= 10) {
      length++;
    }
    length = Math.max(length, width);
    byte[] b = new byte[prefix.length() + length];
    for (int p = 0; p < prefix.length(); p++) {
      b[p] = (byte) prefix.charAt(p); // ASCII
    }
    digits(b, prefix.length(), n, length);
    return new String(b, StandardCharsets.ISO_8859_1);
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
