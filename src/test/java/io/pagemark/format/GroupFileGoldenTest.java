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
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins the group file format, version 1: a group file written from fixed inputs must equal, byte for byte, the file
 * committed as {@code src/test/resources/golden/group-v1.pmi}, and the reader must read that file back.
 *
 * <p>If this test fails, the bytes the writer produces have changed, and every index already on disk would be read
 * differently. That is only acceptable together with a new format version (GroupFileFormat.VERSION_2 and on) and a reader
 * for the old one. To regenerate the golden file deliberately, after bumping the version:
 *
 * <pre>
 * mvn -B test -pl src -Dtest=GroupFileGoldenTest -Dpagemark.golden.write=true
 * </pre>
 *
 * which rewrites the file and then fails on purpose, so that a regeneration is never mistaken for a pass; review
 * {@code git diff --stat}, add a new golden file for the new version rather than overwriting the old one where the
 * old version stays readable, and commit.
 */
class GroupFileGoldenTest {
  static final String GOLDEN = "golden/group-v1.pmi";

  static final List<KeyAttribute> ATTRIBUTES = List.of(
      new KeyAttribute("createdAt", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY),
      new KeyAttribute("SK", KeyType.B, KeyAttribute.TABLE_SORT_KEY));

  static List<IndexRecord> records() {
    return List.of(
        IndexRecord.unique(List.of(n("-12.5"), s("item-\u00e9"), b(0x00, 0x7f))),
        new IndexRecord(0, 3, true, 1, List.of(n("100"), s("c"), b(0x80))),
        new IndexRecord(1, 3, true, 2, List.of(n("1E+2"), s("a"), b(0x01))),
        new IndexRecord(2, 3, true, 0, List.of(n("100.0"), s("\uD83D\uDE00"), b(0xff))),
        new IndexRecord(0, 2, false, 1, List.of(n("101"), s("x"), b(0x02))),
        new IndexRecord(1, 2, false, 0, List.of(n("101"), s("y"), b(0x03, 0x04))),
        IndexRecord.unique(List.of(n("1.5E+3"), s(""), b(0x05))));
  }

  static Path writeFromFixedInputs(Path file) throws IOException {
    GroupFiles.write(file, "PK2", KeyValue.ofString("SKU-1/\u00e9"), ATTRIBUTES, "20231114T221320Z-beef",
        1_700_000_000_000L, records(), GroupFileFormat.VERSION_1);
    return file;
  }

  @TempDir Path dir;

  @Test
  void theWriterReproducesTheGoldenFile() throws IOException {
    byte[] written = Files.readAllBytes(writeFromFixedInputs(dir.resolve("g.pmi")));
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
      fail("the writer no longer reproduces " + GOLDEN + ": first difference at byte " + at + " (written "
          + written.length + " bytes, golden " + golden.length + ")\nwritten: " + hexAround(written, at)
          + "\ngolden:  " + hexAround(golden, at) + "\nA format change needs a new version; see this test's javadoc.");
    }
  }

  @Test
  void theReaderReadsTheGoldenFile() throws IOException {
    Path file = dir.resolve("golden.pmi");
    Files.write(file, golden());
    try (GroupFile f = GroupFile.open(file)) {
      GroupHeader h = f.header();
      assertThat(h.groupAttribute(), equalTo("PK2"));
      assertThat(h.groupKey().text(), equalTo("SKU-1/\u00e9"));
      assertThat(h.attributes(), equalTo(ATTRIBUTES));
      assertThat(h.buildId(), equalTo("20231114T221320Z-beef"));
      assertThat(h.buildTimeMillis(), equalTo(1_700_000_000_000L));
      assertThat(h.entryCount(), equalTo(7L));
      f.verify();
    }
    List<IndexRecord> read = GroupFiles.readAll(file);
    assertThat(read, equalTo(records()));
    assertThat(read.get(2).keys().get(0).text(), equalTo("1E+2"));
  }

  /** The fixed part of the header, at the offsets docs/file-format.md gives. */
  @Test
  void theGoldenHeaderLayout() throws IOException {
    ByteBuffer b = ByteBuffer.wrap(golden());
    byte[] magic = new byte[8];
    b.get(0, magic);
    assertThat(new String(magic, StandardCharsets.US_ASCII), equalTo("PAGEMARK"));
    assertThat(b.getShort(8), equalTo((short) 1)); // version
    assertThat(b.getShort(10), equalTo((short) 3)); // attributes
    int headerLength = b.getInt(12);
    assertThat(headerLength % 8, equalTo(0));
    int width = b.getInt(16);
    assertThat(width, equalTo(12 + (2 + 5) + (2 + 7) + (2 + 2))); // the widest record, the first
    assertThat(b.getInt(20), equalTo(0)); // reserved flags
    assertThat(b.getLong(24), equalTo(7L));
    assertThat(b.getLong(32), equalTo(1_700_000_000_000L));
    byte[] id = new byte[32];
    b.get(40, id);
    assertThat(new String(id, StandardCharsets.US_ASCII), equalTo("20231114T221320Z-beef" + "\0".repeat(11)));
    // 72..103: SHA-256 of the records; 104..: group attribute, group key, attributes; CRC32C in the last 4 bytes
    byte[] name = new byte[b.getShort(104)];
    b.get(106, name);
    assertThat(new String(name, StandardCharsets.UTF_8), equalTo("PK2"));
    CRC32C crc = new CRC32C();
    crc.update(golden(), 0, headerLength - 4);
    assertThat(b.getInt(headerLength - 4), equalTo((int) crc.getValue()));
    assertThat(b.capacity(), equalTo(headerLength + 7 * width));
    // first record: tie position, run word (high bit = run order unknown), descending slot, then the values
    assertThat(b.getInt(headerLength), equalTo(0));
    assertThat(b.getInt(headerLength + 4), equalTo(1));
    int unknownRun = headerLength + 4 * width;
    assertThat(b.getInt(unknownRun + 4), equalTo(0x8000_0002));
  }

  static byte[] golden() throws IOException {
    try (InputStream in = GroupFileGoldenTest.class.getResourceAsStream("/" + GOLDEN)) {
      if (in == null) {
        throw new AssertionError(GOLDEN + " is missing from the test resources; see this test's javadoc");
      }
      return in.readAllBytes();
    }
  }

  static String hexAround(byte[] b, int at) {
    int from = Math.max(0, at - 8);
    int to = Math.min(b.length, at + 8);
    return from >= to ? "(ends)" : "@" + from + " " + HexFormat.ofDelimiter(" ").formatHex(b, from, to);
  }

  private static KeyValue n(String text) {
    return KeyValue.ofNumber(text);
  }

  private static KeyValue s(String text) {
    return KeyValue.ofString(text);
  }

  private static KeyValue b(int... bytes) {
    byte[] v = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      v[i] = (byte) bytes[i];
    }
    return KeyValue.ofBinary(v);
  }
}
