package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writing a whole group at once ({@link GroupFileWriter#write(Path, GroupHeader, List)}) and joining the files of its
 * parts ({@link GroupFileWriter#join}) give the very bytes that streaming the same records through a {@link
 * GroupFileWriter} gives, in both versions: same codecs, same tie table or inline ties, same checksum.
 */
class GroupFileOnePassTest {
  private static final List<KeyAttribute> SK_PK = GroupFileV2Test.SK_PK;

  @TempDir Path dir;

  static GroupHeader header(List<IndexRecord> records) {
    int width = GroupFileFormat.RECORD_PREFIX_BYTES;
    for (IndexRecord r : records) {
      width = Math.max(width, GroupFileWriter.widthFor(r.keys()));
    }
    return new GroupHeader("PK2", GroupFileV2Test.GROUP, SK_PK, width, 0, 1L, "b", new byte[32]);
  }

  /** The file streaming writes, as the reference. */
  private Path streamed(List<IndexRecord> records, int version) throws IOException {
    Path file = dir.resolve("streamed-" + version + ".pmi");
    GroupFiles.write(file, "PK2", GroupFileV2Test.GROUP, SK_PK, "b", 1L, records, version);
    return file;
  }

  /** Groups of every shape the layout depends on: empty, one entry, mostly ties, some ties, several read blocks. */
  static List<List<IndexRecord>> groups() {
    Random r = new Random(17);
    List<List<IndexRecord>> groups = new ArrayList<>();
    groups.add(List.of());
    groups.add(List.of(IndexRecord.unique(List.of(KeyValue.ofString("2024-01-01T00:00:00Z"),
        KeyValue.ofString("p")))));
    int[][] shapes = {{300, 2}, {300, 20}, {300, 1000}, {2_000, 2}, {2_000, 20}, {2_000, 1000}, {45_000, 20}};
    for (int[] shape : shapes) { // the last one spans several blocks of V1Records
      int size = shape[0];
      int tieShare = shape[1];
      List<List<KeyValue>> keys = new ArrayList<>();
      String bulk = GroupFileV2Test.datetime(r);
      for (int i = 0; i < size; i++) {
        String sk = r.nextInt(tieShare) == 0 ? bulk
            : switch (i % 3) {
              case 0 -> GroupFileV2Test.datetime(r);
              case 1 -> String.format("n-%05d", r.nextInt(size));
              default -> GroupFileV2Test.randomText(r);
            };
        keys.add(List.of(KeyValue.ofString(sk), KeyValue.ofString("p" + GroupFileV2Test.randomText(r) + i)));
      }
      groups.add(GroupFileV2Test.ranked(keys, r));
    }
    return groups;
  }

  @Test
  void recordsInMemoryAreWrittenAsStreamingWritesThem() throws IOException {
    for (List<IndexRecord> records : groups()) {
      for (int version : new int[] {GroupFileFormat.VERSION_1, GroupFileFormat.VERSION_2}) {
        Path file = dir.resolve("whole.pmi");
        GroupHeader done = GroupFileWriter.write(file, header(records), records, version);
        Path reference = streamed(records, version);
        assertThat(records.size() + " records, version " + version, Files.readAllBytes(file),
            equalTo(Files.readAllBytes(reference)));
        try (GroupFile f = GroupFile.open(reference)) {
          assertThat(done, equalTo(f.header()));
        }
        // a build leaves the sync to its publish: the same bytes, the same header
        Path unsynced = dir.resolve("unsynced.pmi");
        assertThat(GroupFileWriter.write(unsynced, header(records), records, version, FileSync.BY_CALLER),
            equalTo(done));
        assertThat(Files.readAllBytes(unsynced), equalTo(Files.readAllBytes(reference)));
      }
    }
  }

  /**
   * A group whose sort keys are all datetimes (in seconds, or in milliseconds), with and without ties: its whole-group
   * write encodes them from the times kept while learning (each parsed once), and streaming parses them again, so the
   * same bytes show that the kept times are the values' own, in the records' order.
   */
  @Test
  void datetimesKeptFromLearningEncodeAsParsingThemAgainDoes() throws IOException {
    Random r = new Random(29);
    for (boolean millis : new boolean[] {false, true}) {
      for (int[] shape : new int[][] {{1, 2}, {700, 3}, {45_000, 50}}) {
        List<List<KeyValue>> keys = new ArrayList<>();
        String bulk = GroupFileV2Test.datetime(r);
        for (int i = 0; i < shape[0]; i++) {
          String sk = r.nextInt(shape[1]) == 0 ? bulk : GroupFileV2Test.datetime(r);
          if (millis) {
            sk = sk.replace("Z", "." + (100 + r.nextInt(900)) + "Z");
          }
          keys.add(List.of(KeyValue.ofString(sk), KeyValue.ofString("p" + i)));
        }
        List<IndexRecord> records = GroupFileV2Test.ranked(keys, r);
        Path file = dir.resolve("whole.pmi");
        GroupFileWriter.write(file, header(records), records, GroupFileFormat.VERSION_2, FileSync.BY_CALLER);
        assertThat(shape[0] + " records, millis " + millis, Files.readAllBytes(file),
            equalTo(Files.readAllBytes(streamed(records, GroupFileFormat.VERSION_2))));
        try (GroupFile f = GroupFile.open(file)) {
          assertThat(f.layout().codecs().get(0).isDatetime(), equalTo(true));
        }
        // columns a caller learns into (for a later join) keep what was learned, not the times
        GroupColumns learned = new GroupColumns(SK_PK.size());
        GroupFileWriter.write(file, header(records), records, GroupFileFormat.VERSION_2, FileSync.BY_CALLER, learned);
        assertThat(learned.records(), equalTo((long) records.size()));
        assertThat(java.util.Arrays.asList(learned.times()), equalTo(java.util.Arrays.asList(new long[2][])));
      }
    }
  }

  @Test
  void recordsInMemoryAreTheSameRecordsEncodedOnceOrABlockAtATime() throws IOException {
    for (List<IndexRecord> records : groups()) {
      GroupHeader header = header(records);
      V1Records once = V1Records.ofRecords(records, header);
      V1Records inBlocks = V1Records.ofRecords(records, header, 0);
      byte[] expected = bytes(inBlocks, header.recordWidth());
      assertThat(records.size() + " records, first pass", bytes(once, header.recordWidth()), equalTo(expected));
      assertThat(records.size() + " records, second pass", bytes(once, header.recordWidth()), equalTo(expected));
      assertThat(bytes(inBlocks, header.recordWidth()), equalTo(expected));
    }
  }

  /** Every record of one pass, one after another, after checking that ranks count up from 0. */
  private static byte[] bytes(V1Records records, int width) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    long[] next = {0};
    records.forEach((b, at, rank) -> {
      assertThat(rank, equalTo(next[0]++));
      out.write(b, at, width);
    });
    assertThat(next[0], equalTo(records.count()));
    return out.toByteArray();
  }

  @Test
  void partsOfEitherVersionJoinAsStreamingWritesTheWholeGroup() throws IOException {
    Random r = new Random(18);
    for (List<IndexRecord> records : groups()) {
      // cut between runs of equal sort keys, as parts are (OrderedPart)
      List<Integer> cuts = new ArrayList<>(List.of(0));
      for (int parts = 1 + r.nextInt(4), i = 1; i < parts; i++) {
        int cut = r.nextInt(records.size() + 1);
        while (cut < records.size() && records.get(cut).tiePosition() != 0) {
          cut++;
        }
        cuts.add(cut);
      }
      cuts.add(records.size());
      cuts.sort(null);
      for (int partVersion : new int[] {GroupFileFormat.VERSION_1, GroupFileFormat.VERSION_2}) {
        List<GroupFile> parts = new ArrayList<>();
        GroupColumns learned = null;
        try {
          for (int i = 0; i + 1 < cuts.size(); i++) {
            List<IndexRecord> part = records.subList(cuts.get(i), cuts.get(i + 1));
            Path file = dir.resolve("part-" + i + ".pmi");
            GroupColumns columns = new GroupColumns(SK_PK.size());
            GroupFileWriter.write(file, header(part), part, partVersion, FileSync.BY_CALLER, columns); // as a build
            assertThat(columns.records(), equalTo((long) part.size()));
            learned = learned == null ? columns : learned.then(columns);
            parts.add(GroupFile.open(file));
          }
          String what = records.size() + " records in parts " + cuts + " of version " + partVersion;
          Path joined = dir.resolve("joined.pmi");
          byte[] expected = Files.readAllBytes(streamed(records, GroupFileFormat.VERSION_2));
          GroupFileWriter.join(joined, header(records), parts, GroupFileFormat.VERSION_2, FileSync.BY_CALLER);
          assertThat(what + ", version 2", Files.readAllBytes(joined), equalTo(expected));
          // the columns learned while the parts were written, joined in part order, choose the same file
          GroupFileWriter.join(joined, header(records), parts, GroupFileFormat.VERSION_2, FileSync.BY_CALLER, learned);
          assertThat(what + ", version 2 from the parts' columns", Files.readAllBytes(joined), equalTo(expected));
          if (partVersion == GroupFileFormat.VERSION_1) {
            GroupFileWriter.join(joined, header(records), parts, GroupFileFormat.VERSION_1);
            assertThat(what + ", version 1", Files.readAllBytes(joined),
                equalTo(Files.readAllBytes(streamed(records, GroupFileFormat.VERSION_1))));
          } else { // a version-1 file holds a version-2 part's widest possible value: it may be wider
            GroupHeader h = header(records);
            int width = Math.max(h.recordWidth(),
                parts.stream().mapToInt(GroupFile::unpackedRecordWidth).max().orElse(0));
            GroupFileWriter.join(joined, new GroupHeader("PK2", h.groupKey(), SK_PK, width, 0, 1L, "b",
                new byte[32]), parts, GroupFileFormat.VERSION_1);
            GroupFileV2Test.assertExact(records, GroupFiles.readAll(joined));
          }
        } finally {
          for (GroupFile f : parts) {
            f.close();
          }
        }
      }
    }
  }

  @Test
  void aRecordThatDoesNotFitTheHeaderFailsAndLeavesNoFile() throws IOException {
    List<IndexRecord> records = List.of(
        IndexRecord.unique(List.of(KeyValue.ofString("a"), KeyValue.ofString("p"))),
        IndexRecord.unique(List.of(KeyValue.ofString("b"), KeyValue.ofString("a much longer partition key"))));
    GroupHeader narrow = header(records.subList(0, 1));
    Path file = dir.resolve("narrow.pmi");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GroupFileWriter.write(file, narrow, records, GroupFileFormat.VERSION_2));
    assertThat(e.getMessage(), containsString("more than the header's width of " + narrow.recordWidth()));
    assertThat(Files.exists(file), equalTo(false));

    List<IndexRecord> number = List.of(IndexRecord.unique(List.of(KeyValue.ofNumber("1"), KeyValue.ofString("p"))));
    e = assertThrows(IllegalArgumentException.class,
        () -> GroupFileWriter.write(file, header(number), number, GroupFileFormat.VERSION_2));
    assertThat(e.getMessage(), containsString("attribute SK is declared S but the record holds N"));
    assertThat(Files.exists(file), equalTo(false));
  }

  @Test
  void columnsLearnedFromOtherRecordsAreRefused() throws IOException {
    List<IndexRecord> records = List.of(IndexRecord.unique(List.of(KeyValue.ofString("a"), KeyValue.ofString("p"))),
        IndexRecord.unique(List.of(KeyValue.ofString("b"), KeyValue.ofString("p"))));
    Path part = dir.resolve("part.pmi");
    GroupColumns columns = new GroupColumns(SK_PK.size());
    GroupFileWriter.write(part, header(records), records, GroupFileFormat.VERSION_1, FileSync.BY_CALLER, columns);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GroupFileWriter.write(
        dir.resolve("again.pmi"), header(records), records, GroupFileFormat.VERSION_1, FileSync.BY_CALLER, columns));
    assertThat(e.getMessage(), containsString("must be new"));
    try (GroupFile f = GroupFile.open(part)) {
      Path joined = dir.resolve("joined.pmi");
      e = assertThrows(IllegalArgumentException.class, () -> GroupFileWriter.join(joined, header(records),
          List.of(f, f), GroupFileFormat.VERSION_2, FileSync.BY_CALLER, columns));
      assertThat(e.getMessage(), containsString("learned from 2 records of 2 attributes; the parts hold 4"));
      assertThat(Files.exists(joined), equalTo(false));
      e = assertThrows(IllegalArgumentException.class, () -> columns.then(new GroupColumns(3)));
      assertThat(e.getMessage(), containsString("2 attributes with columns of 3"));
    }
  }

  @Test
  void partsOfOtherAttributesAreNotJoined() throws IOException {
    List<IndexRecord> records = List.of(IndexRecord.unique(List.of(KeyValue.ofString("a"), KeyValue.ofString("p"))));
    Path part = dir.resolve("other.pmi");
    List<KeyAttribute> other = List.of(SK_PK.get(0), new KeyAttribute("ID", KeyType.S,
        KeyAttribute.TABLE_PARTITION_KEY));
    GroupFileWriter.write(part, new GroupHeader("PK2", GroupFileV2Test.GROUP, other, 64, 0, 1L, "b", new byte[32]),
        records, GroupFileFormat.VERSION_1);
    try (GroupFile f = GroupFile.open(part)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> GroupFileWriter.join(dir.resolve("joined.pmi"), header(records), List.of(f)));
      assertThat(e.getMessage(), containsString("attributes"));
    }
  }
}
