package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.pagemark.dynamo.IndexEntry;
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
    for (int round = 0; round < 60; round++) {
      KeyType sortType = KeyType.values()[round % 3];
      KeyValue group = round % 2 == 0 ? KeyValue.ofNumber("1") : KeyValue.ofString("g\u00e9");
      List<IndexEntry> entries = new ArrayList<>();
      int n = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 2000 : 20);
      List<KeyValue> sortKeys = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        // few distinct sort keys in some rounds: long runs of ties
        KeyValue sk = !sortKeys.isEmpty() && rnd.nextInt(3) == 0 ? sortKeys.get(rnd.nextInt(sortKeys.size()))
            : sortKey(rnd, sortType);
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
      assertThat("round " + round, texts(part.records()), equalTo(texts(expected)));
      assertThat("round " + round, part.records(), equalTo(expected));
      assertThat(part.group().text(), equalTo(sorted.get(0).group().text()));
    }
  }

  private static KeyValue sortKey(Random rnd, KeyType type) {
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
