package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.fail;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins the group file format, version 2 (docs/format-v2.md): a file written from fixed inputs must equal, byte for
 * byte, {@code src/test/resources/golden/group-v2.pmi}, and the reader must read it back with every key exact. The
 * inputs use a datetime sort key, digits after a prefix, a variable-length binary and a tie table. Regenerate only
 * with a new format version, as {@link GroupFileGoldenTest} explains:
 *
 * <pre>
 * mvn -B test -pl src -Dtest=GroupFileGoldenV2Test -Dpagemark.golden.write=true
 * </pre>
 */
class GroupFileGoldenV2Test {
  static final String GOLDEN = "golden/group-v2.pmi";

  static final List<KeyAttribute> ATTRIBUTES = List.of(
      new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY),
      new KeyAttribute("tag", KeyType.B, KeyAttribute.TABLE_SORT_KEY));

  /** 24 entries; one run of 3 equal sort keys (order known), which stays in the tie table (3 of 24 ≤ an eighth). */
  static List<IndexRecord> records() {
    List<IndexRecord> out = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      int second = i < 10 ? i : i < 13 ? 10 : i;
      List<KeyValue> keys = List.of(KeyValue.ofString(String.format("2026-11-22T00:11:%02dZ", second)),
          KeyValue.ofString(String.format("comment-%07d", 120 + 7 * i)),
          KeyValue.ofBinary(Arrays.copyOf(new byte[] {(byte) i, (byte) 0xff, 0}, i % 3)));
      out.add(i >= 10 && i < 13 ? new IndexRecord(i - 10, 3, true, (i - 10 + 2) % 3, keys) : IndexRecord.unique(keys));
    }
    return out;
  }

  static byte[] written(Path dir) throws IOException {
    Path file = dir.resolve("g2.pmi");
    GroupFiles.write(file, "PK2", KeyValue.ofString("SKU-1/\u00e9"), ATTRIBUTES, "20261122T001152Z-3f9a",
        1_700_000_000_000L, records(), GroupFileFormat.VERSION_2);
    return Files.readAllBytes(file);
  }

  static byte[] golden() throws IOException {
    try (InputStream in = GroupFileGoldenV2Test.class.getResourceAsStream("/" + GOLDEN)) {
      if (in == null) {
        throw new AssertionError(GOLDEN + " is missing from the test resources; see this test's javadoc");
      }
      return in.readAllBytes();
    }
  }

  @TempDir Path dir;

  @Test
  void theWriterReproducesTheGoldenFile() throws IOException {
    byte[] written = written(dir);
    if (Boolean.getBoolean("pagemark.golden.write")) {
      Path target = Path.of(System.getProperty("basedir", "."), "test", "resources", GOLDEN);
      Files.createDirectories(target.getParent());
      Files.write(target, written);
      fail("rewrote " + target + " (" + written.length + " bytes); review and commit it, then run without "
          + "-Dpagemark.golden.write");
    }
    byte[] golden = golden();
    if (!Arrays.equals(written, golden)) {
      int at = Arrays.mismatch(written, golden);
      fail("the writer no longer reproduces " + GOLDEN + ": first difference at byte " + at + "\nwritten: "
          + GroupFileGoldenTest.hexAround(written, at) + "\ngolden:  " + GroupFileGoldenTest.hexAround(golden, at)
          + "\nA format change needs a new version; see GroupFileGoldenTest's javadoc.");
    }
  }

  @Test
  void theOnePassWriterAndTheJoinOfVersion1PartsReproduceTheGoldenFile() throws IOException {
    List<IndexRecord> records = records();
    int width = 0;
    for (IndexRecord r : records) {
      width = Math.max(width, GroupFileWriter.widthFor(r.keys()));
    }
    GroupHeader header = new GroupHeader("PK2", KeyValue.ofString("SKU-1/\u00e9"), ATTRIBUTES, width, 0,
        1_700_000_000_000L, "20261122T001152Z-3f9a", new byte[32]);
    Path whole = dir.resolve("whole.pmi");
    GroupFileWriter.write(whole, header, records, GroupFileFormat.VERSION_2);
    assertThat("written from memory", Arrays.equals(Files.readAllBytes(whole), golden()), equalTo(true));

    Path first = dir.resolve("part-0.pmi");
    Path second = dir.resolve("part-1.pmi");
    GroupFileWriter.write(first, header, records.subList(0, 10), GroupFileFormat.VERSION_1);
    GroupFileWriter.write(second, header, records.subList(10, 24), GroupFileFormat.VERSION_1);
    Path joined = dir.resolve("joined.pmi");
    try (GroupFile a = GroupFile.open(first); GroupFile b = GroupFile.open(second)) {
      GroupFileWriter.join(joined, header, List.of(a, b), GroupFileFormat.VERSION_2);
    }
    assertThat("joined from two parts", Arrays.equals(Files.readAllBytes(joined), golden()), equalTo(true));
  }

  @Test
  void theReaderReadsTheGoldenFileExactly() throws IOException {
    Path file = dir.resolve("golden.pmi");
    Files.write(file, golden());
    try (GroupFile f = GroupFile.open(file)) {
      assertThat(f.formatVersion(), equalTo(2));
      assertThat(f.header().groupKey().text(), equalTo("SKU-1/\u00e9"));
      assertThat(f.header().attributes(), equalTo(ATTRIBUTES));
      assertThat(f.header().buildId(), equalTo("20261122T001152Z-3f9a"));
      f.verify();
    }
    GroupFileV2Test.assertExact(records(), GroupFiles.readAll(file));
  }

  /** The fixed header, the codecs and the tie table at the offsets docs/format-v2.md gives. */
  @Test
  void theGoldenLayout() throws IOException {
    byte[] g = golden();
    ByteBuffer b = ByteBuffer.wrap(g);
    assertThat(new String(g, 0, 8, StandardCharsets.US_ASCII), equalTo("PAGEMARK"));
    assertThat(b.getShort(8), equalTo((short) 2));
    assertThat(b.getShort(10), equalTo((short) 3));
    int h = b.getInt(12);
    assertThat(h % 8, equalTo(0));
    int w = b.getInt(16);
    assertThat(w, equalTo(1 + 1 + (1 + 2))); // SK: 23 s in 1 byte; PK: 161 in 1 byte; tag: VAR k=1 p=2
    assertThat(b.getInt(20), equalTo(0));
    assertThat(b.getLong(24), equalTo(24L));
    assertThat(b.getLong(104), equalTo(1L)); // one run
    assertThat(b.getLong(112), equalTo(3L)); // of three entries
    CRC32C crc = new CRC32C();
    crc.update(g, 0, h - 4);
    assertThat(b.getInt(h - 4), equalTo((int) crc.getValue()));
    int table = h + 24 * w;
    assertThat(g.length, equalTo(table + 16 + 3 * 4));
    crc.reset();
    crc.update(g, table, g.length - table);
    assertThat(b.getInt(120), equalTo((int) crc.getValue()));
    assertThat(b.getLong(table), equalTo(10L)); // the run starts at rank 10
    assertThat(b.getInt(table + 8), equalTo(3)); // of 3, order known
    assertThat(new int[] {b.getInt(table + 16), b.getInt(table + 20), b.getInt(table + 24)},
        equalTo(new int[] {2, 0, 1}));
    // the first record: SK 0 s after the base, PK's first value after its base, tag of length 0
    assertThat(Arrays.copyOfRange(g, h, h + w), equalTo(new byte[] {0, 0, 0, 0, 0}));
  }
}
