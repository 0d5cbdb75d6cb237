package io.pagemark.transforms.order;


import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.util.SerializableUtils;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's coders: exact round trips (stored bytes included), alone and back to back in one stream (as Beam
 * nests them in a {@code KV} or an iterable), stable encodings, serializable coders, and refusal of bad input. Beam's
 * own {@code CoderProperties} needs JUnit 4, which this build does not carry; these checks cover the same ground.
 */
class CodersTest {
  static final long SEED = 99L;

  static <T> void roundTrips(Coder<T> coder, List<T> values) throws IOException {
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    for (T v : values) {
      byte[] alone = CoderUtils.encodeToByteArray(coder, v);
      assertThat(CoderUtils.decodeFromByteArray(coder, alone), equalTo(v));
      assertThat("encoding is stable: " + v, CoderUtils.encodeToByteArray(coder, v), equalTo(alone));
      coder.encode(v, stream);
    }
    InputStream in = new ByteArrayInputStream(stream.toByteArray());
    for (T v : values) {
      assertThat(coder.decode(in), equalTo(v));
    }
    assertThat("every byte consumed", in.read(), equalTo(-1));
    @SuppressWarnings("unchecked")
    Coder<T> copy = (Coder<T>) SerializableUtils.ensureSerializable(coder);
    assertThat(copy, equalTo(coder));
  }

  static KeyValue randomKey(Random rnd) {
    switch (rnd.nextInt(3)) {
      case 0: {
        StringBuilder b = new StringBuilder();
        int n = rnd.nextInt(4) == 0 ? 300 : rnd.nextInt(10);
        for (int i = 0; i < n; i++) {
          b.appendCodePoint(rnd.nextBoolean() ? 'a' + rnd.nextInt(26) : 0x1F600 + rnd.nextInt(50));
        }
        return KeyValue.ofString(b.toString());
      }
      case 1:
        return KeyValue.ofNumber(List.of("0", "1", "1.0", "-12.5E+3", "9.9999999999999999999999999999999999999E+125",
            "1E-130", "" + rnd.nextLong()).get(rnd.nextInt(7)));
      default: {
        byte[] b = new byte[rnd.nextInt(4) == 0 ? 200 : rnd.nextInt(5)];
        rnd.nextBytes(b);
        return KeyValue.ofBinary(b);
      }
    }
  }

  @Test
  void keyValues() throws IOException {
    Random rnd = new Random(SEED);
    List<KeyValue> values = new ArrayList<>(List.of(KeyValue.ofString(""), KeyValue.ofString("x".repeat(1000)),
        KeyValue.ofBinary(new byte[0]), KeyValue.ofBinary(new byte[] {(byte) 0x80, 0x7f})));
    for (int i = 0; i < 500; i++) {
      values.add(randomKey(rnd));
    }
    roundTrips(KeyValueCoder.of(), values);
    for (KeyValue v : values) {
      // equal is not enough for a key: the stored bytes ("1.0", not "1") are what the index writes
      KeyValue back =
          CoderUtils.decodeFromByteArray(KeyValueCoder.of(), CoderUtils.encodeToByteArray(KeyValueCoder.of(), v));
      assertThat(back.type(), equalTo(v.type()));
      assertThat(back.bytes(), equalTo(v.bytes()));
    }
  }

  @Test
  void indexEntries() throws IOException {
    Random rnd = new Random(SEED + 1);
    List<IndexEntry> values = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      List<KeyValue> keys = new ArrayList<>();
      int n = 1 + rnd.nextInt(3);
      for (int k = 0; k < n; k++) {
        keys.add(randomKey(rnd));
      }
      values.add(new IndexEntry(randomKey(rnd), keys));
    }
    roundTrips(IndexEntryCoder.of(), values);
  }

  @Test
  void entryBlocks() throws IOException {
    Random rnd = new Random(SEED + 3);
    List<List<IndexEntry>> blocks = new ArrayList<>();
    for (int b = 0; b < 30; b++) {
      KeyValue group = randomKey(rnd);
      List<IndexEntry> block = new ArrayList<>();
      int n = rnd.nextInt(4) == 0 ? 1000 : 1 + rnd.nextInt(5);
      for (int i = 0; i < n; i++) {
        // now and then the same group written differently ("1" and "1.0"), or another group: kept exactly
        KeyValue g = rnd.nextInt(50) == 0 ? randomKey(rnd) : group;
        block.add(new IndexEntry(g, List.of(randomKey(rnd), randomKey(rnd))));
      }
      blocks.add(block);
    }
    blocks.add(List.of(new IndexEntry(KeyValue.ofNumber("1"), List.of(KeyValue.ofString("a"))),
        new IndexEntry(KeyValue.ofNumber("1.0"), List.of(KeyValue.ofString("b")))));
    for (List<IndexEntry> block : blocks) {
      EntryBlock decoded = CoderUtils.decodeFromByteArray(EntryBlockCoder.of(),
          CoderUtils.encodeToByteArray(EntryBlockCoder.of(), EntryBlock.of(block)));
      List<IndexEntry> entries = decoded.entries();
      assertThat(entries, equalTo(block));
      for (int i = 0; i < block.size(); i++) {
        // KeyValue.equals compares numbers by value: the stored text must survive too
        assertThat(entries.get(i).group().text(), equalTo(block.get(i).group().text()));
        for (int k = 0; k < block.get(i).keys().size(); k++) {
          assertThat(entries.get(i).keys().get(k).text(), equalTo(block.get(i).keys().get(k).text()));
        }
      }
    }
  }

  @Test
  void orderedParts() throws IOException {
    Random rnd = new Random(SEED + 2);
    List<OrderedPart> values = new ArrayList<>();
    values.add(new OrderedPart(KeyValue.ofString("empty"), 0, 1, List.of()));
    for (int i = 0; i < 40; i++) {
      List<IndexRecord> records = new ArrayList<>();
      int n = rnd.nextInt(4) == 0 ? 200 : rnd.nextInt(5);
      while (records.size() < n) {
        int run = rnd.nextInt(3) == 0 ? 1 + rnd.nextInt(300) : 1;
        boolean known = rnd.nextBoolean();
        for (int k = 0; k < run && records.size() < n; k++) {
          records.add(new IndexRecord(k, run, known, rnd.nextInt(run), List.of(randomKey(rnd), randomKey(rnd))));
        }
      }
      int parts = 1 + rnd.nextInt(1000);
      values.add(new OrderedPart(randomKey(rnd), rnd.nextInt(parts), parts, records));
    }
    roundTrips(OrderedPartCoder.of(), values);
  }

  /**
   * Beam requires of a deterministic coder that equal values encode equally. Numbers keep the text DynamoDB returned,
   * so "1" and "1.0" are equal keys with different encodings: the coders must say they are not deterministic, so that
   * Beam refuses them as grouping keys rather than split one group in two.
   */
  @Test
  void equalNumbersWrittenDifferentlyEncodeDifferentlySoTheCodersAreNotDeterministic() throws IOException {
    KeyValue one = KeyValue.ofNumber("1");
    KeyValue oneAgain = KeyValue.ofNumber("1.0");
    assertThat(one, equalTo(oneAgain));
    assertThat(CoderUtils.encodeToByteArray(KeyValueCoder.of(), one),
        not(equalTo(CoderUtils.encodeToByteArray(KeyValueCoder.of(), oneAgain))));
    for (Coder<?> c : List.of(KeyValueCoder.of(), IndexEntryCoder.of(), EntryBlockCoder.of(), OrderedPartCoder.of())) {
      Coder.NonDeterministicException e =
          assertThrows(Coder.NonDeterministicException.class, c::verifyDeterministic);
      assertThat(e.getMessage(), containsString("\"1.0\""));
    }
    // what the build groups by instead is canonical
    assertThat(OrderGroups.groupId(one), equalTo(OrderGroups.groupId(oneAgain)));
    assertThat(OrderGroups.groupId(one), not(equalTo(OrderGroups.groupId(KeyValue.ofString("1")))));
  }

  @Test
  void badInputIsACoderErrorNotAWrongValue() throws IOException {
    CoderException unknownType = assertThrows(CoderException.class,
        () -> CoderUtils.decodeFromByteArray(KeyValueCoder.of(), new byte[] {9, 1, 'x'}));
    assertThat(unknownType.getMessage(), containsString("unknown key type code 9"));

    byte[] good = CoderUtils.encodeToByteArray(KeyValueCoder.of(), KeyValue.ofString("abc"));
    assertThrows(EOFException.class, () -> KeyValueCoder.of().decode(
        new ByteArrayInputStream(Arrays.copyOf(good, good.length - 1))));
    assertThrows(CoderException.class, () -> KeyValueCoder.readVarInt(new java.io.DataInputStream(
        new ByteArrayInputStream(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}))));
    assertThat(KeyType.fromCode((byte) 2), equalTo(KeyType.N));

    byte[] entry = CoderUtils.encodeToByteArray(IndexEntryCoder.of(),
        new IndexEntry(KeyValue.ofString("g"), List.of(KeyValue.ofString("sort"), KeyValue.ofNumber("1.0"))));
    assertThrows(EOFException.class, () -> IndexEntryCoder.of().decode(
        new ByteArrayInputStream(Arrays.copyOf(entry, entry.length - 1))));
    byte[] shortBlock = entry.clone();
    shortBlock[0]--; // the block claims one byte less than its keys take
    assertThrows(CoderException.class, () -> IndexEntryCoder.of().decode(
        new ByteArrayInputStream(Arrays.copyOf(shortBlock, shortBlock.length - 1))));
  }
}
