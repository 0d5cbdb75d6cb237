package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.EncodedRecords;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link OrderPartFn#order} sorts entries by their bytes in blocks, never decoding them: it must give exactly the
 * records that sorting the decoded entries by {@link IndexEntry#ORDER} and running them through {@link GroupRecords}
 * gives (the order group files were written in before blocks stayed bytes), stored text included.
 */
class OrderPartFnTest {
  private static final long SEED = 1717;

  @Test
  void bytesOrderAsTheDecodedEntriesDo() throws IOException {
    Random rnd = new Random(SEED);
    int asBytes = 0;
    for (int round = 0; round < 60; round++) {
      KeyType sortType = KeyType.values()[round % 3];
      asBytes += checkRound("round " + round, rnd, 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 2000 : 20), 3,
          () -> sortKey(rnd, sortType)) ? 1 : 0;
    }
    // both ways of holding records are checked: as bytes (most parts) and as objects
    assertThat(asBytes, greaterThan(30));
  }

  /**
   * Keys made to trip a prefix comparison (PrefixCode): long common prefixes with the difference far behind them,
   * keys that are prefixes of others, zero bytes against a shorter key, 0xFF, empty keys, numbers that differ only
   * in their 38th digit, mixed types in one part, and long runs of one key.
   */
  @Test
  void keysThatSharePrefixesOrderAsTheDecodedEntriesDo() throws IOException {
    Random rnd = new Random(SEED + 1);
    for (int round = 0; round < 120; round++) {
      int style = round % 6;
      int n = 1 + rnd.nextInt(round % 5 == 0 ? 3000 : 60);
      // some rounds have few distinct keys: runs of ties hundreds long
      int tieOdds = round % 4 == 0 ? 1 : 3;
      checkRound("round " + round + " (style " + style + ")", rnd, n, tieOdds, () -> trickyKey(rnd, style));
    }
  }

  /**
   * A part's records are held as bytes padded to the widest (what the file sink writes) unless a few are so much
   * wider than the rest that the padding would take more memory than record objects; the records are the same.
   */
  @Test
  void aFewWideKeysKeepAPartAsObjects() throws IOException {
    for (int wide : new int[] {0, 1, 50}) {
      List<IndexEntry> entries = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        String sk = i < wide ? "w".repeat(2000) + i : "k" + i;
        entries.add(new IndexEntry(KeyValue.ofString("g"), List.of(KeyValue.ofString(sk), KeyValue.ofString("p" + i))));
      }
      OrderedPart part = OrderPartFn.order(List.of(EntryBlock.of(entries)), 0, 1, OrderGroupsTest.fakeTies(null));
      assertThat(wide + " wide keys", part.records() instanceof EncodedRecords, equalTo(wide == 0));
      List<IndexEntry> sorted = new ArrayList<>(entries);
      sorted.sort(IndexEntry.ORDER);
      for (int i = 0; i < sorted.size(); i++) {
        assertThat(part.records().get(i).keys(), equalTo(sorted.get(i).keys()));
      }
    }
  }

  /** Checks one part of random entries; returns whether its records were held as bytes. */
  private static boolean checkRound(String round, Random rnd, int n, int tieOdds, Supplier<KeyValue> keys)
      throws IOException {
    KeyValue group = rnd.nextBoolean() ? KeyValue.ofNumber("1") : KeyValue.ofString("g\u00e9");
    List<IndexEntry> entries = new ArrayList<>();
    List<KeyValue> sortKeys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      // a key drawn again now and then: runs of ties (every one of them in some rounds)
      KeyValue sk = !sortKeys.isEmpty() && rnd.nextInt(tieOdds) == 0 ? sortKeys.get(rnd.nextInt(sortKeys.size()))
          : keys.get();
      sortKeys.add(sk);
      // the same group written differently now and then: each entry keeps its own text
      KeyValue g = group.type() == KeyType.N && rnd.nextInt(10) == 0 ? KeyValue.ofNumber("1.00") : group;
      entries.add(new IndexEntry(g, List.of(sk, KeyValue.ofString("pk-" + i + "-" + rnd.nextInt(1000)))));
    }
    Collections.shuffle(entries, rnd);
    List<EntryBlock> blocks = new ArrayList<>();
    for (int from = 0; from < entries.size(); ) {
      int to = Math.min(entries.size(), from + 1 + rnd.nextInt(300));
      blocks.add(EntryBlock.of(entries.subList(from, to)));
      from = to;
    }
    TieOrder ties = OrderGroupsTest.fakeTies(null);

    OrderedPart part = OrderPartFn.order(blocks, 0, 1, ties);

    List<IndexEntry> sorted = new ArrayList<>(entries);
    sorted.sort(IndexEntry.ORDER);
    List<IndexRecord> expected = new ArrayList<>();
    GroupRecords g = new GroupRecords(ties, expected::add);
    for (IndexEntry e : sorted) {
      g.add(e);
    }
    g.finish();
    // records of one key type each are held as their bytes (as the file sink writes them), others as objects
    boolean oneType = entries.stream().map(e -> e.keys().get(0).type()).distinct().count() == 1;
    boolean asBytes = part.records() instanceof EncodedRecords;
    assertThat(round, asBytes && !oneType, equalTo(false));
    assertThat(round, texts(part.records()), equalTo(texts(expected)));
    assertThat(round, part.records(), equalTo(expected));
    assertThat(part.group().text(), equalTo(sorted.get(0).group().text()));
    // the runs of ties the sinks report, from the bytes and from the same records as objects
    for (TieOrder order : List.of(ties, TieOrder.UNKNOWN)) {
      OrderedPart ordered = order == ties ? part : OrderPartFn.order(blocks, 0, 1, order);
      long runs = 0;
      long unresolved = 0;
      for (IndexRecord r : ordered.records()) {
        runs += r.tiePosition() == 0 && r.runLength() > 1 ? 1 : 0;
        unresolved += r.tiePosition() == 0 && r.runLength() > 1 && !r.runOrderKnown() ? 1 : 0;
      }
      OrderedPart.TieRuns expectedRuns = new OrderedPart.TieRuns(runs, order == ties ? 0 : runs);
      assertThat(round, unresolved, equalTo(expectedRuns.unresolved()));
      assertThat(round, ordered.tieRuns(), equalTo(expectedRuns));
      assertThat(round, new OrderedPart(ordered.group(), 0, 1, new ArrayList<>(ordered.records())).tieRuns(),
          equalTo(expectedRuns));
    }
    return asBytes;
  }

  /** A key of one of six kinds, each made to defeat a comparison that looks at a key's first bytes only. */
  static KeyValue trickyKey(Random rnd, int style) {
    switch (style) {
      case 0: { // strings behind a long common prefix, some ending where others go on
        StringBuilder b = new StringBuilder("https://example.com/products/2024/");
        int n = rnd.nextInt(12);
        for (int i = 0; i < n; i++) {
          int[] cps = {'a', 'b', 0x00e9, 0x4e2d, 0xE000, 0xFFFD, 0x1F600, 0, 0x7f};
          b.appendCodePoint(cps[rnd.nextInt(cps.length)]);
        }
        return KeyValue.ofString(rnd.nextInt(8) == 0 ? b.substring(0, rnd.nextInt(b.length() + 1)) : b.toString());
      }
      case 1: { // short strings, empty ones included: fewer bytes than a long holds
        return KeyValue.ofString("ab".substring(0, rnd.nextInt(3)) + (rnd.nextBoolean() ? "" : "\u0000"));
      }
      case 2: { // binaries of 0x00, 0x01 and 0xFF: a zero byte against a key that has ended
        byte[] b = new byte[rnd.nextInt(rnd.nextBoolean() ? 3 : 20)];
        for (int i = 0; i < b.length; i++) {
          b[i] = (byte) (new int[] {0x00, 0x01, 0xFF, 0x80, 0x7F}[rnd.nextInt(i < 10 ? 1 : 5)]);
        }
        return KeyValue.ofBinary(b);
      }
      case 3: { // numbers with 38 digits that differ in the last ones, and their neighbours
        String[] heads = {"1234567890123456789012345678901234567", "-1234567890123456789012345678901234567",
            "9999999999999999999999999999999999999", "0.000000000000000000000000000000000000"};
        String head = heads[rnd.nextInt(heads.length)];
        String text = rnd.nextInt(5) == 0 ? head.substring(0, 1 + rnd.nextInt(head.length() - 1))
            : head + rnd.nextInt(10);
        return KeyValue.ofNumber(text.endsWith(".") || text.equals("-") ? text + "5" : text);
      }
      case 4: { // every type in one part: the type decides first
        return sortKey(rnd, KeyType.values()[rnd.nextInt(3)]);
      }
      default: { // timestamps to the millisecond: many fixed positions, a long common prefix
        long ms = 1_700_000_000_000L + (rnd.nextBoolean() ? rnd.nextInt(1000) : rnd.nextLong() % 100_000_000_000L);
        return KeyValue.ofString(java.time.Instant.ofEpochMilli(ms).toString());
      }
    }
  }

  static KeyValue sortKey(Random rnd, KeyType type) {
    switch (type) {
      case S: {
        StringBuilder b = new StringBuilder();
        int n = rnd.nextInt(6);
        for (int i = 0; i < n; i++) {
          int[] cps = {'a', 'b', 0x00e9, 0x4e2d, 0xE000, 0xFFFD, 0x1F600, 0};
          b.appendCodePoint(cps[rnd.nextInt(cps.length)]);
        }
        return KeyValue.ofString(b.toString());
      }
      case N: {
        String[] texts = {"0", "1", "1.0", "10", "-1", "-1.5", "0.5", "0.51", "12345678901234567890123456789012345678",
            "-12345678901234567890123456789012345678", "1E-130", "9.9E+125", "-0.001"};
        return KeyValue.ofNumber(rnd.nextInt(3) == 0 ? Long.toString(rnd.nextLong() % 1000)
            : texts[rnd.nextInt(texts.length)]);
      }
      default: {
        byte[] b = new byte[rnd.nextInt(4)];
        for (int i = 0; i < b.length; i++) {
          b[i] = (byte) (rnd.nextInt(4) * 0x55);
        }
        return KeyValue.ofBinary(b);
      }
    }
  }

  /** The records' fields with the stored text of each key (KeyValue.equals compares numbers by value). */
  private static List<String> texts(List<IndexRecord> records) {
    List<String> out = new ArrayList<>();
    for (IndexRecord r : records) {
      StringBuilder b = new StringBuilder();
      b.append(r.tiePosition()).append('/').append(r.runLength()).append('/').append(r.runOrderKnown()).append('/')
          .append(r.descendingSlot());
      for (KeyValue k : r.keys()) {
        b.append('|').append(k.type()).append(':').append(k.text());
      }
      out.add(b.toString());
    }
    return out;
  }
}
