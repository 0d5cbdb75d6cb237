package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Version 2 keeps every key exact (the same type and the same bytes as written, numbers' text included), every tie
 * field, and both the tie table and inline ties; and it chooses the codecs docs/format-v2.md promises for the demo's
 * and the seed's shapes.
 */
class GroupFileV2Test {
  static final KeyValue GROUP = KeyValue.ofString("SKU-00000");
  static final List<KeyAttribute> SK_PK = List.of(
      new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));

  @TempDir Path dir;

  /** Records with the sort keys in order and runs of equal sort keys marked, as the builders make them. */
  static List<IndexRecord> ranked(List<List<KeyValue>> keys, Random random) {
    List<List<KeyValue>> sorted = new ArrayList<>(keys);
    sorted.sort((a, b) -> a.get(0).compareTo(b.get(0)));
    List<IndexRecord> out = new ArrayList<>();
    for (int i = 0; i < sorted.size(); ) {
      int j = i;
      while (j < sorted.size() && sorted.get(j).get(0).equals(sorted.get(i).get(0))) {
        j++;
      }
      int run = j - i;
      List<Integer> slots = new ArrayList<>();
      for (int k = 0; k < run; k++) {
        slots.add(k);
      }
      java.util.Collections.shuffle(slots, random);
      boolean known = random.nextInt(4) != 0;
      for (int k = 0; k < run; k++) {
        out.add(run == 1 ? IndexRecord.unique(sorted.get(i + k))
            : new IndexRecord(k, run, known, slots.get(k), sorted.get(i + k)));
      }
      i = j;
    }
    return out;
  }

  static void assertExact(List<IndexRecord> expected, List<IndexRecord> read) {
    assertThat(read.size(), equalTo(expected.size()));
    for (int i = 0; i < expected.size(); i++) {
      IndexRecord e = expected.get(i);
      IndexRecord r = read.get(i);
      assertThat("rank " + i, r, equalTo(e));
      for (int k = 0; k < e.keys().size(); k++) {
        assertThat("rank " + i + " key " + k, r.keys().get(k).type(), equalTo(e.keys().get(k).type()));
        assertThat("rank " + i + " key " + k + " " + e.keys().get(k), Arrays.equals(r.keys().get(k).bytes(),
            e.keys().get(k).bytes()), equalTo(true));
      }
    }
  }

  private List<IndexRecord> roundTrip(List<KeyAttribute> attributes, List<IndexRecord> records) throws IOException {
    Path file = dir.resolve("g" + System.nanoTime() + ".pmi");
    GroupFiles.write(file, "PK2", GROUP, attributes, "b", 1L, records, GroupFileFormat.VERSION_2);
    try (GroupFile f = GroupFile.open(file)) {
      assertThat(f.formatVersion(), equalTo(2));
      f.verify();
      List<IndexRecord> seq = new ArrayList<>();
      f.forEachRecord(seq::add);
      assertExact(records, seq);
    }
    List<IndexRecord> read = GroupFiles.readAll(file);
    assertExact(records, read);
    return read;
  }

  private static GroupFile open(Path file) throws IOException {
    return GroupFile.open(file);
  }

  static String datetime(Random r) {
    return Instant.parse("2024-01-01T00:00:00Z").plusSeconds(r.nextInt(90_000_000)).toString();
  }

  @Test
  void demoCommentsAreADatetimeAndDigitsAfterAPrefix() throws IOException {
    Random r = new Random(1);
    List<List<KeyValue>> keys = new ArrayList<>();
    String bulk = datetime(r);
    for (int i = 0; i < 5000; i++) {
      String sk = r.nextInt(20) == 0 ? bulk : datetime(r);
      keys.add(List.of(KeyValue.ofString(sk), KeyValue.ofString(String.format("comment-%07d", r.nextInt(50_000)))));
    }
    List<IndexRecord> records = ranked(keys, r);
    roundTrip(SK_PK, records);
    Path file = dir.resolve("demo.pmi");
    GroupFiles.write(file, "PK2", GROUP, SK_PK, "b", 1L, records, GroupFileFormat.VERSION_2);
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
    assertThat(b.getInt(16), equalTo(4 + 2)); // SK seconds in 4 bytes, PK's 5 digits after "comment-0" in 2
    assertThat(b.getInt(20), equalTo(0)); // a tie table, not inline ties
    assertThat((double) Files.size(file) / records.size(), lessThanOrEqualTo(0.8 * 35));
  }

  @Test
  void theSeedShapeIs22BytesARecord() throws IOException {
    Random r = new Random(2);
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    List<List<KeyValue>> keys = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      StringBuilder pk = new StringBuilder();
      for (int c = 0; c < 24; c++) {
        pk.append(alphabet.charAt(r.nextInt(alphabet.length())));
      }
      keys.add(List.of(KeyValue.ofString(datetime(r)), KeyValue.ofString(pk.toString())));
    }
    List<IndexRecord> records = ranked(keys, r);
    roundTrip(SK_PK, records);
    Path file = dir.resolve("seed.pmi");
    GroupFiles.write(file, "PK2", GROUP, SK_PK, "b", 1L, records, GroupFileFormat.VERSION_2);
    assertThat(ByteBuffer.wrap(Files.readAllBytes(file)).getInt(16), equalTo(4 + 18)); // 24 characters in 18 bytes
  }

  @Test
  void numbersBinariesAndStringsStayExact() throws IOException {
    List<KeyAttribute> attributes = List.of(
        new KeyAttribute("n", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
        new KeyAttribute("s", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY),
        new KeyAttribute("b", KeyType.B, KeyAttribute.TABLE_SORT_KEY));
    String[] numbers = {"12345678901234567890123456789012345678", "-99999999999999999999999999999999999999",
        "1E-130", "9.9999999999999999999999999999999999999E+125", "100", "1E+2", "100.0", "0", "-0.000001"};
    String[] strings = {"", "a", "\u00e9", "e\u0301", "\uD83D\uDE00", "\uE000", "b\u0000c", "x".repeat(300),
        "2024-02-30T00:00:00Z", "2024-01-01T00:00:00Z", "007", "123456789012345678", "1234567890123456789"};
    Random r = new Random(3);
    List<List<KeyValue>> keys = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      byte[] bytes = new byte[r.nextInt(5)];
      r.nextBytes(bytes);
      keys.add(List.of(KeyValue.ofNumber(numbers[r.nextInt(numbers.length)]),
          KeyValue.ofString(strings[r.nextInt(strings.length)]), KeyValue.ofBinary(bytes)));
    }
    roundTrip(attributes, ranked(keys, r));
  }

  @Test
  void everyCodecRoundTripsAtItsEdges() throws IOException {
    List<KeyAttribute> one = List.of(new KeyAttribute("v", KeyType.S, KeyAttribute.INDEX_SORT_KEY));
    List<List<String>> columns = List.of(
        List.of("0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z"),
        List.of("2024-02-29T12:00:00.000Z", "2024-02-29T12:00:00.001Z", "1969-12-31T23:59:59.999Z"),
        List.of("000000000000000000", "999999999999999999", "000000000000000001"),
        List.of("id-9", "id-0"),
        List.of("same", "same", "same"),
        List.of("x"),
        List.of("a", "bb", "c".repeat(70_000 / 100)),
        List.of("-", "_", "z"),
        List.of("id--", "id__", "idzz", "id09"),
        List.of("k-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"),
        List.of("abcdefg.", "abcdefg/", "ab~defgh"));
    Random r = new Random(4);
    for (List<String> values : columns) {
      List<List<KeyValue>> keys = new ArrayList<>();
      values.forEach(v -> keys.add(List.of(KeyValue.ofString(v))));
      roundTrip(one, ranked(keys, r));
    }
  }

  @Test
  void aGroupOfMostlyTiesKeepsItsTieFieldsInline() throws IOException {
    Random r = new Random(5);
    List<List<KeyValue>> keys = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      keys.add(List.of(KeyValue.ofString("2024-01-0" + (1 + r.nextInt(3)) + "T00:00:00Z"),
          KeyValue.ofString("p" + i)));
    }
    roundTrip(SK_PK, ranked(keys, r));
    Path file = dir.resolve("ties.pmi");
    GroupFiles.write(file, "PK2", GROUP, SK_PK, "b", 1L, ranked(keys, r), GroupFileFormat.VERSION_2);
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file));
    assertThat(b.getInt(20), equalTo(1));
    assertThat(b.getLong(104), equalTo(0L));
  }

  @Test
  void emptyAndSingleEntryGroups() throws IOException {
    roundTrip(SK_PK, List.of());
    List<IndexRecord> one = List.of(IndexRecord.unique(List.of(KeyValue.ofString("2024-01-01T00:00:00Z"),
        KeyValue.ofString("p"))));
    roundTrip(SK_PK, one);
    Path file = dir.resolve("one.pmi");
    GroupFiles.write(file, "PK2", GROUP, SK_PK, "b", 1L, one, GroupFileFormat.VERSION_2);
    assertThat(ByteBuffer.wrap(Files.readAllBytes(file)).getInt(16), equalTo(1)); // all slots 0 wide: one byte
  }

  @Test
  void randomGroupsRoundTripInBothVersions() throws IOException {
    Random r = new Random(6);
    for (int round = 0; round < 40; round++) {
      int n = r.nextInt(200);
      List<List<KeyValue>> keys = new ArrayList<>();
      String prefix = "p".repeat(r.nextInt(3));
      int sortKeys = 1 + r.nextInt(n + 1);
      for (int i = 0; i < n; i++) {
        String sk = switch (round % 4) {
          case 0 -> datetime(new Random(r.nextInt(sortKeys)));
          case 1 -> prefix + String.format("%05d", r.nextInt(sortKeys));
          case 2 -> prefix + randomText(r);
          default -> Integer.toString(r.nextInt(sortKeys));
        };
        keys.add(List.of(KeyValue.ofString(sk), KeyValue.ofString(prefix + randomText(r))));
      }
      List<IndexRecord> records = ranked(keys, r);
      roundTrip(SK_PK, records);
      Path v1 = dir.resolve("r1.pmi");
      GroupFiles.write(v1, "PK2", GROUP, SK_PK, "b", 1L, records, GroupFileFormat.VERSION_1);
      assertExact(records, GroupFiles.readAll(v1));
    }
  }

  static String randomText(Random r) {
    StringBuilder s = new StringBuilder();
    int n = r.nextInt(6);
    for (int i = 0; i < n; i++) {
      int c = switch (r.nextInt(4)) {
        case 0 -> 'a' + r.nextInt(3);
        case 1 -> '0' + r.nextInt(10);
        case 2 -> 0xE9;
        default -> 0x1F600;
      };
      s.appendCodePoint(c);
    }
    return s.toString();
  }

  @Test
  void filesOfEitherVersionCopyIntoEitherVersionThroughACursor() throws IOException {
    Random r = new Random(7);
    List<List<KeyValue>> keys = new ArrayList<>();
    String bulk = datetime(r);
    for (int i = 0; i < 60_000; i++) { // more than one cursor block of version 1, so runs straddle blocks
      keys.add(List.of(KeyValue.ofString(r.nextInt(10) == 0 ? bulk : datetime(r)),
          KeyValue.ofString(String.format("comment-%07d", i))));
    }
    List<IndexRecord> records = ranked(keys, r);
    for (int from : new int[] {1, 2}) {
      Path base = dir.resolve("base" + from + ".pmi");
      GroupFiles.write(base, "PK2", GROUP, SK_PK, "b", 1L, records, from);
      for (int to : new int[] {1, 2}) {
        Path copy = dir.resolve("copy" + from + to + ".pmi");
        try (GroupFile f = open(base)) {
          GroupHeader h = new GroupHeader("PK2", GROUP, SK_PK, f.unpackedRecordWidth(), 0, 1L, "b", new byte[32]);
          try (GroupFileWriter w = new GroupFileWriter(copy, h, to)) {
            RecordCursor c = f.cursor();
            c.copyWhileBelow(records.get(30_000).sortKey(), w);
            assertThat(c.rank(), equalTo(30_000L - records.get(30_000).tiePosition()));
            c.copyRest(w);
            w.finish();
          }
        }
        try (GroupFile f = open(copy)) {
          assertThat(f.formatVersion(), equalTo(to));
          f.verify();
        }
        assertExact(records, GroupFiles.readAll(copy));
      }
    }
  }

  @Test
  void recordsReadUnpackedAreTheVersion1RecordsByteForByte() throws IOException {
    Random r = new Random(8);
    List<List<KeyValue>> keys = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      keys.add(List.of(KeyValue.ofString(r.nextInt(5) == 0 ? "2024-01-01T00:00:00Z" : datetime(r)),
          KeyValue.ofString(randomText(r))));
    }
    List<IndexRecord> records = ranked(keys, r);
    Path v2 = dir.resolve("u2.pmi");
    GroupFiles.write(v2, "PK2", GROUP, SK_PK, "b", 1L, records, GroupFileFormat.VERSION_2);
    try (GroupFile f2 = GroupFile.open(v2)) {
      int width = f2.unpackedRecordWidth();
      Path v1 = dir.resolve("u1.pmi");
      try (GroupFileWriter w = new GroupFileWriter(v1, new GroupHeader("PK2", GROUP, SK_PK, width, 0, 1L, "b",
          new byte[32]), GroupFileFormat.VERSION_1)) {
        for (IndexRecord rec : records) {
          w.append(rec);
        }
        w.finish();
      }
      try (GroupFile f1 = GroupFile.open(v1)) {
        byte[] a = new byte[records.size() * width];
        byte[] b = new byte[records.size() * width + 3];
        f1.readUnpacked(0, records.size(), a, 0);
        f2.readUnpacked(0, records.size(), b, 3);
        assertThat(Arrays.equals(a, 0, a.length, b, 3, b.length), equalTo(true));
        byte[] one = new byte[width];
        f2.readUnpacked(records.size() - 1, 1, one, 0);
        assertThat(Arrays.equals(one, 0, width, a, a.length - width, a.length), equalTo(true));
      }
    }
  }
}
