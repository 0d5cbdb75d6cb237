package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records held as their version-1 bytes ({@link EncodedRecords}) are the records they were built from, and a group
 * file written from them is the very file written from those records as objects: both versions, whole or as a part
 * whose columns are learned, and under a header they do not fit as they are (wider, or of other types).
 */
class EncodedRecordsTest {
  private static final List<KeyType> S_S = List.of(KeyType.S, KeyType.S);

  @TempDir Path dir;

  /** The records, built at their ranks in a random order, half from objects and half from their keys' bytes. */
  private static EncodedRecords encode(List<IndexRecord> records, Random r) {
    int width = GroupFileOnePassTest.header(records).recordWidth();
    EncodedRecords.Builder b = new EncodedRecords.Builder(S_S, width, records.size());
    List<Integer> ranks = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      ranks.add(i);
    }
    Collections.shuffle(ranks, r);
    for (int rank : ranks) {
      IndexRecord rec = records.get(rank);
      if (r.nextBoolean()) {
        b.put(rank, rec);
      } else {
        int p = b.start(rank, rec.tiePosition(), rec.runLength(), rec.runOrderKnown(), rec.descendingSlot());
        for (KeyValue k : rec.keys()) {
          byte[] framed = new byte[k.length() + 3]; // the value inside other bytes, as a block holds it
          k.copyTo(framed, 2);
          p = b.key(rank, p, framed, 2, k.length());
        }
      }
    }
    return b.build();
  }

  @Test
  void encodedRecordsAreTheRecordsTheyWereBuiltFrom() {
    Random r = new Random(31);
    for (List<IndexRecord> records : GroupFileOnePassTest.groups()) {
      EncodedRecords encoded = encode(records, r);
      assertThat(encoded, equalTo(records));
      assertThat(encoded.width(), equalTo(GroupFileOnePassTest.header(records).recordWidth()));
      for (int i = 0; i < records.size(); i++) {
        IndexRecord rec = records.get(i);
        assertThat(encoded.tiePosition(i), equalTo(rec.tiePosition()));
        assertThat(encoded.runLength(i), equalTo(rec.runLength()));
        assertThat(encoded.runOrderKnown(i), equalTo(rec.runOrderKnown()));
        assertThat(encoded.get(i).descendingSlot(), equalTo(rec.descendingSlot()));
      }
    }
  }

  @Test
  void aFileWrittenFromEncodedRecordsIsTheFileWrittenFromObjects() throws IOException {
    Random r = new Random(32);
    for (List<IndexRecord> records : GroupFileOnePassTest.groups()) {
      EncodedRecords encoded = encode(records, r);
      GroupHeader header = GroupFileOnePassTest.header(records);
      assertThat(encoded.fits(header), equalTo(true));
      for (int version : new int[] {GroupFileFormat.VERSION_1, GroupFileFormat.VERSION_2}) {
        String what = records.size() + " records, version " + version;
        Path fromObjects = dir.resolve("objects.pmi");
        Path fromBytes = dir.resolve("bytes.pmi");
        GroupColumns objectColumns = new GroupColumns(2);
        GroupColumns byteColumns = new GroupColumns(2);
        GroupHeader expected = GroupFileWriter.write(fromObjects, header, new ArrayList<>(records), version,
            FileSync.BY_CALLER, objectColumns);
        assertThat(what, GroupFileWriter.write(fromBytes, header, encoded, version, FileSync.BY_CALLER,
            byteColumns), equalTo(expected));
        assertThat(what, Files.readAllBytes(fromBytes), equalTo(Files.readAllBytes(fromObjects)));
        assertThat(what, byteColumns.records(), equalTo((long) records.size()));
        assertThat(what, byteColumns.layout(records.size()), equalTo(objectColumns.layout(records.size())));
      }
    }
  }

  @Test
  void underAHeaderTheyDoNotFitTheRecordsAreWrittenAsObjects() throws IOException {
    Random r = new Random(33);
    List<IndexRecord> records = GroupFileOnePassTest.groups().get(3);
    EncodedRecords encoded = encode(records, r);
    GroupHeader h = GroupFileOnePassTest.header(records);
    GroupHeader wider = new GroupHeader("PK2", h.groupKey(), h.attributes(), h.recordWidth() + 7, 0, 1L, "b",
        new byte[32]);
    assertThat(encoded.fits(wider), equalTo(false));
    for (int version : new int[] {GroupFileFormat.VERSION_1, GroupFileFormat.VERSION_2}) {
      Path a = dir.resolve("a.pmi");
      Path b = dir.resolve("b.pmi");
      GroupFileWriter.write(a, wider, new ArrayList<>(records), version);
      GroupFileWriter.write(b, wider, encoded, version);
      assertThat(Files.readAllBytes(b), equalTo(Files.readAllBytes(a)));
    }
    List<KeyAttribute> numbers = List.of(new KeyAttribute("SK", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
        h.attributes().get(1));
    GroupHeader otherTypes = new GroupHeader("PK2", h.groupKey(), numbers, h.recordWidth(), 0, 1L, "b",
        new byte[32]);
    assertThat(encoded.fits(otherTypes), equalTo(false));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GroupFileWriter.write(dir.resolve("n.pmi"), otherTypes, encoded, GroupFileFormat.VERSION_2));
    assertThat(e.getMessage(), containsString("attribute SK is declared N but the record holds S"));
  }

  @Test
  void aBuilderRefusesWhatWouldNotBeARecord() {
    byte[] v = "value".getBytes(StandardCharsets.UTF_8);
    EncodedRecords.Builder b = new EncodedRecords.Builder(S_S, GroupFileFormat.RECORD_PREFIX_BYTES + 4 + 8, 2);
    int p = b.start(0, 0, 1, true, 0);
    p = b.key(0, p, v, 0, v.length);
    int last = p;
    assertThat(assertThrows(IllegalArgumentException.class, () -> b.key(0, last, v, 0, v.length)).getMessage(),
        containsString("does not fit a record of width 24"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> b.start(0, 0, 1, true, 0)).getMessage(),
        containsString("written already"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> b.start(2, 0, 1, true, 0)).getMessage(),
        containsString("outside 2 records"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> b.start(1, 2, 2, true, 0)).getMessage(),
        containsString("in a run of 2"));
    assertThat(assertThrows(IllegalStateException.class, b::build).getMessage(),
        containsString("rank 1 of 2 was not written"));
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> b.put(1, IndexRecord.unique(List.of(KeyValue.ofNumber("1"), KeyValue.ofString("p"))))).getMessage(),
        containsString("key value 0 is N among records where it is S"));

    EncodedRecords.Builder wide = new EncodedRecords.Builder(S_S, 70_000, 1);
    int q = wide.start(0, 0, 1, true, 0);
    assertThat(assertThrows(IllegalArgumentException.class, () -> wide.key(0, q, new byte[65_536], 0, 65_536))
        .getMessage(), containsString("stores at most 65535"));
    assertThrows(IllegalArgumentException.class, () -> new EncodedRecords.Builder(S_S, 15, 1));
  }
}
