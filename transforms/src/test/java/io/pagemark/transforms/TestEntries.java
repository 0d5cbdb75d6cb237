package io.pagemark.transforms;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.io.UncheckedIOException;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Index entries that stress the order: a group big enough to be split, a small one and a single entry, under group
 * keys that are no safe path ({@code a/b/../c}) or not ASCII; sort keys that repeat (runs of about ten equal ones) and
 * that UTF-8 and UTF-16 order differently, or numbers of up to 38 digits. Fixed seeds: every call returns the same.
 */
public final class TestEntries {
  /** A string sort key {@code SK}, group key {@code G}, the table's partition key {@code PK}. */
  public static final KeySchema STRINGS = schema(KeyType.S);
  /** As {@link #STRINGS} with a number sort key. */
  public static final KeySchema NUMBERS = schema(KeyType.N);

  private TestEntries() {}

  public static KeySchema schema(KeyType sortKeyType) {
    return new KeySchema("t", "byG", "G", KeyType.S,
        List.of(new KeyAttribute("SK", sortKeyType, KeyAttribute.INDEX_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
        "PK", null);
  }

  /** Groups of 1,500, 40 and 1 entries whose sort keys repeat (runs of about ten), in a fixed shuffled order. */
  public static List<IndexEntry> of(KeyType sortKeyType) {
    Random rnd = new Random(sortKeyType == KeyType.S ? 11 : 12);
    Map<String, Integer> sizes = new LinkedHashMap<>();
    sizes.put("big", 1_500);
    sizes.put("a/b/../c", 40);
    sizes.put("\u00e9\uD83D\uDE00", 1);
    List<IndexEntry> all = new ArrayList<>();
    for (Map.Entry<String, Integer> g : sizes.entrySet()) {
      List<String> pool = new ArrayList<>();
      for (int i = 0; i < Math.max(1, g.getValue() / 10); i++) {
        pool.add(sortKeyType == KeyType.S ? randomString(rnd) : randomNumber(rnd));
      }
      for (int i = 0; i < g.getValue(); i++) {
        KeyValue sortKey = KeyValue.parse(sortKeyType, pool.get(rnd.nextInt(pool.size())));
        all.add(new IndexEntry(KeyValue.ofString(g.getKey()),
            List.of(sortKey, KeyValue.ofString(g.getKey() + "#" + i))));
      }
    }
    Collections.shuffle(all, rnd);
    return all;
  }

  /** Strings where UTF-8 and UTF-16 orders disagree: supplementary characters beside U+E000..U+FFFF. */
  static String randomString(Random rnd) {
    int[] alphabet = {'a', 'b', 'e', 0x301, 0xE9, 0x4E2D, 0xE000, 0xFFFD, 0x1F600, 0x10000};
    StringBuilder b = new StringBuilder();
    for (int n = 1 + rnd.nextInt(4); n > 0; n--) {
      b.appendCodePoint(alphabet[rnd.nextInt(alphabet.length)]);
    }
    return b.toString();
  }

  /** Numbers of up to 38 digits, negative and fractional ones included, some written with extra zeros. */
  static String randomNumber(Random rnd) {
    StringBuilder b = new StringBuilder(rnd.nextBoolean() ? "-" : "");
    b.append(1 + rnd.nextInt(9));
    for (int n = rnd.nextInt(36); n > 0; n--) {
      b.append(rnd.nextInt(10));
    }
    return switch (rnd.nextInt(3)) {
      case 0 -> b.toString();
      case 1 -> b.insert(b.length() - 1, '.') + "0";
      default -> "0.000" + b.toString().replace("-", "");
    };
  }

  /** The entries of each group, groups in order of first appearance. */
  public static Map<KeyValue, List<IndexEntry>> byGroup(List<IndexEntry> entries) {
    Map<KeyValue, List<IndexEntry>> m = new LinkedHashMap<>();
    entries.forEach(e -> m.computeIfAbsent(e.group(), g -> new ArrayList<>()).add(e));
    return m;
  }

  /** The records of a group ordered in one piece, as a single worker would write them. */
  public static List<IndexRecord> wholeGroup(List<IndexEntry> entries, TieOrder ties) {
    List<IndexEntry> sorted = new ArrayList<>(entries);
    sorted.sort(IndexEntry.ORDER);
    List<IndexRecord> records = new ArrayList<>();
    GroupRecords g = new GroupRecords(ties, records::add);
    try {
      for (IndexEntry e : sorted) {
        g.add(e);
      }
      g.finish();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return records;
  }
}
