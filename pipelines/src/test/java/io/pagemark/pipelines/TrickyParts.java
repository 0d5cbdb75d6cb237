package io.pagemark.pipelines;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.transforms.order.OrderedPart;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * Indexes as the backfill hands them to its sinks ({@link OrderedPart}s), without DynamoDB, built to break a naive
 * encoding: runs of equal sort keys whose order is known (in a shuffled order, as DynamoDB's is) or unknown, strings
 * whose UTF-8 and UTF-16 orders differ and that contain NUL bytes, numbers beyond doubles and equal numbers written
 * differently, binaries of 0x00 and 0xFF bytes, hostile group keys (including a 1,000-byte one), and groups split
 * into many parts. Deterministic for a seed.
 */
final class TrickyParts {
  /** An index: its schema and its parts. */
  record Index(KeySchema schema, List<OrderedPart> parts) {
    List<KeyValue> groups() {
      List<KeyValue> g = new ArrayList<>();
      for (OrderedPart p : parts) {
        if (p.part() == 0) {
          g.add(p.group());
        }
      }
      return g;
    }

    long entries() {
      return parts.stream().mapToLong(p -> p.records().size()).sum();
    }
  }

  private TrickyParts() {}

  /** String group keys, string sort key (the table's sort key), the table's partition key stored too. */
  static Index strings(long seed, int maxPartSize) {
    Random r = new Random(seed);
    KeySchema schema = new KeySchema("tricky", "byString", "PK2", KeyType.S,
        List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
        "PK", "SK");
    List<OrderedPart> parts = new ArrayList<>();
    int[] id = {0};
    Function<KeyValue, List<KeyValue>> keys = sk -> List.of(sk, KeyValue.ofString(String.format("item-%05d", id[0]++)));
    parts.addAll(group(r, KeyValue.ofString("big"), 2_000, maxPartSize, keys,
        () -> KeyValue.ofString(String.format("t%05d", r.nextInt(1500)))));
    parts.addAll(group(r, KeyValue.ofString("ties"), 300, maxPartSize, keys,
        () -> KeyValue.ofString("same-" + r.nextInt(4))));
    parts.addAll(group(r, KeyValue.ofString("utf"), 150, maxPartSize, keys,
        () -> KeyValue.ofString(pick(r, TrickyTable.TRICKY_STRINGS) + (r.nextBoolean() ? "" : pick(r,
            TrickyTable.TRICKY_STRINGS)))));
    for (String g : TrickyTable.HOSTILE_GROUPS) {
      parts.addAll(group(r, KeyValue.ofString(g), 5 + r.nextInt(30), maxPartSize, keys,
          () -> KeyValue.ofString(TrickyTable.TRICKY_STRINGS.get(r.nextInt(5)))));
    }
    return new Index(schema, parts);
  }

  /** Number group keys and sort keys, with the table's string keys stored. */
  static Index numbers(long seed, int maxPartSize) {
    Random r = new Random(seed);
    KeySchema schema = new KeySchema("tricky", "byNumber", "G", KeyType.N,
        List.of(new KeyAttribute("NUM", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY),
            new KeyAttribute("SK", KeyType.S, KeyAttribute.TABLE_SORT_KEY)),
        "PK", "SK");
    List<OrderedPart> parts = new ArrayList<>();
    int[] id = {0};
    Function<KeyValue, List<KeyValue>> keys = n -> List.of(n, KeyValue.ofString("p" + id[0]), KeyValue.ofString(
        "s" + id[0]++));
    for (String g : List.of("-99999999999999999999999999999999999999", "0", "1E-130",
        "12345678901234567890123456789012345678", "1.5")) {
      parts.addAll(group(r, KeyValue.ofNumber(g), 40 + r.nextInt(200), maxPartSize, keys,
          () -> KeyValue.ofNumber(pick(r, TrickyTable.TRICKY_NUMBERS))));
    }
    return new Index(schema, parts);
  }

  /** Binary group keys and sort keys. */
  static Index binaries(long seed, int maxPartSize) {
    Random r = new Random(seed);
    KeySchema schema = new KeySchema("tricky", "byBinary", "G", KeyType.B,
        List.of(new KeyAttribute("BIN", KeyType.B, KeyAttribute.INDEX_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
        "PK", null);
    List<OrderedPart> parts = new ArrayList<>();
    int[] id = {0};
    Function<KeyValue, List<KeyValue>> keys = b -> List.of(b, KeyValue.ofString("p" + id[0]++));
    byte[] long1000 = new byte[1000];
    r.nextBytes(long1000);
    for (byte[] g : List.of(new byte[] {0}, new byte[] {0, 0}, new byte[] {(byte) 0xFF}, long1000)) {
      parts.addAll(group(r, KeyValue.ofBinary(g), 30 + r.nextInt(100), maxPartSize, keys, () -> {
        byte[] pool = {0, 1, (byte) 0x7F, (byte) 0x80, (byte) 0xFF};
        byte[] b = new byte[1 + r.nextInt(3)];
        for (int i = 0; i < b.length; i++) {
          b[i] = pool[r.nextInt(pool.length)];
        }
        return KeyValue.ofBinary(b);
      }));
    }
    return new Index(schema, parts);
  }

  /** The demo's key schema: table comments, GSI byProduct (PK2, SK), the table's key PK stored too. */
  static final KeySchema COMMENTS = new KeySchema("comments", "byProduct", "PK2", KeyType.S,
      List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
          new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
      "PK", "SK");

  /**
   * {@code n} demo-like comments of one product: ids {@code comment-0001234}, ISO timestamps, one in ten imported in
   * bulk with the timestamp of another (runs of equal sort keys).
   */
  static List<IndexRecord> comments(KeyValue product, int n, long seed) {
    Random r = new Random(seed);
    java.time.Instant base = java.time.Instant.parse("2024-01-01T00:00:00Z");
    List<IndexEntry> entries = new ArrayList<>();
    String previous = base.toString();
    for (int i = 0; i < n; i++) {
      String at = r.nextInt(10) == 0 ? previous : base.plusSeconds(r.nextInt(90_000_000)).toString();
      entries.add(new IndexEntry(product, List.of(KeyValue.ofString(at),
          KeyValue.ofString(String.format("comment-%07d", seed * 1_000_000 + i)))));
      previous = at;
    }
    return records(entries, r);
  }

  /** A group's entries as the backfill's index records: in the index's order, runs of equal sort keys resolved. */
  static List<IndexRecord> records(List<IndexEntry> entries, Random r) {
    List<IndexEntry> sorted = new ArrayList<>(entries);
    sorted.sort(IndexEntry.ORDER);
    List<IndexRecord> out = new ArrayList<>();
    int i = 0;
    while (i < sorted.size()) {
      int j = i + 1;
      while (j < sorted.size() && sorted.get(j).sortKey().compareTo(sorted.get(i).sortKey()) == 0) {
        j++;
      }
      out.addAll(run(sorted.subList(i, j), r));
      i = j;
    }
    return out;
  }

  /**
   * A run of entries with equal sort keys as the backfill writes it: one in three runs has an unknown order (kept in
   * the fallback order), the others a shuffled "DynamoDB" order in each direction.
   */
  private static List<IndexRecord> run(List<IndexEntry> run, Random r) {
    int n = run.size();
    List<IndexRecord> out = new ArrayList<>(n);
    if (n == 1) {
      out.add(IndexRecord.unique(run.get(0).keys()));
      return out;
    }
    if (r.nextInt(3) == 0) {
      for (int k = 0; k < n; k++) {
        out.add(new IndexRecord(k, n, false, n - 1 - k, run.get(k).keys()));
      }
      return out;
    }
    List<Integer> asc = shuffled(n, r);
    List<Integer> desc = shuffled(n, r);
    int[] position = new int[n];
    for (int k = 0; k < n; k++) {
      position[asc.get(k)] = k;
    }
    for (int k = 0; k < n; k++) {
      out.add(new IndexRecord(k, n, true, position[desc.get(k)], run.get(asc.get(k)).keys()));
    }
    return out;
  }

  /** A group's records split into parts of at most {@code maxPartSize} that never split a run of equal keys. */
  static List<OrderedPart> split(KeyValue group, List<IndexRecord> records, int maxPartSize) {
    List<List<IndexRecord>> chunks = new ArrayList<>();
    List<IndexRecord> current = new ArrayList<>();
    for (IndexRecord rec : records) {
      if (current.size() >= maxPartSize && rec.tiePosition() == 0) {
        chunks.add(current);
        current = new ArrayList<>();
      }
      current.add(rec);
    }
    chunks.add(current);
    List<OrderedPart> parts = new ArrayList<>();
    for (int i = 0; i < chunks.size(); i++) {
      parts.add(new OrderedPart(group, i, chunks.size(), chunks.get(i)));
    }
    return parts;
  }

  private static List<OrderedPart> group(Random r, KeyValue group, int size, int maxPartSize,
      Function<KeyValue, List<KeyValue>> keys, java.util.function.Supplier<KeyValue> sortKeys) {
    List<IndexEntry> entries = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      entries.add(new IndexEntry(group, keys.apply(sortKeys.get())));
    }
    return split(group, records(entries, r), maxPartSize);
  }

  private static List<Integer> shuffled(int n, Random r) {
    List<Integer> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.add(i);
    }
    Collections.shuffle(l, r);
    return l;
  }

  private static <T> T pick(Random r, List<T> l) {
    return l.get(r.nextInt(l.size()));
  }
}
