package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of damage to a group file is a typed {@link IndexFormatException} that names the file. */
class GroupFileCorruptionTest {
  @TempDir Path dir;
  byte[] good;
  int headerLength;
  int width;

  @BeforeEach
  void goodFile() throws IOException {
    good = GroupFileGoldenTest.golden();
    headerLength = ByteBuffer.wrap(good).getInt(12);
    width = ByteBuffer.wrap(good).getInt(16);
  }

  Path file(byte[] bytes) throws IOException {
    Path f = dir.resolve("damaged.pmi");
    Files.write(f, bytes);
    return f;
  }

  IndexFormatException openFails(byte[] bytes) throws IOException {
    Path f = file(bytes);
    IndexFormatException e = assertThrows(IndexFormatException.class, () -> GroupFile.open(f));
    assertThat(e.getMessage(), containsString(f.toString()));
    return e;
  }

  @Test
  void aForeignFile() throws IOException {
    byte[] text = "{\"this\": \"is a JSON file, not a pagemark index\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(openFails(text).getMessage(), containsString("not a pagemark group file (bad magic)"));
  }

  @Test
  void aTinyOrEmptyFile() throws IOException {
    assertThat(openFails(new byte[0]).getMessage(), containsString("(0 bytes)"));
    assertThat(openFails(Arrays.copyOf(good, 15)).getMessage(),
        containsString("truncated or not a pagemark group file (15 bytes)"));
  }

  @Test
  void anUnknownVersion() throws IOException {
    byte[] b = good.clone();
    b[9] = 7;
    assertThat(openFails(b).getMessage(),
        containsString("group file format version 7 is not supported (this reader knows versions 1 and 2"));
  }

  @Test
  void aTruncatedHeader() throws IOException {
    assertThat(openFails(Arrays.copyOf(good, 50)).getMessage(),
        containsString("truncated: header of " + headerLength + " bytes, file of 50"));
    assertThat(openFails(Arrays.copyOf(good, headerLength - 1)).getMessage(), containsString("truncated"));
  }

  @Test
  void truncatedRecords() throws IOException {
    assertThat(openFails(Arrays.copyOf(good, good.length - 3)).getMessage(), allOf(
        containsString("truncated: 7 records of " + width + " bytes need " + good.length + " bytes"),
        containsString("the file has " + (good.length - 3))));
    assertThat(openFails(Arrays.copyOf(good, headerLength)).getMessage(), containsString("truncated"));
  }

  @Test
  void trailingBytes() throws IOException {
    assertThat(openFails(Arrays.copyOf(good, good.length + 1)).getMessage(),
        containsString("corrupt (trailing bytes)"));
  }

  @Test
  void aFlippedHeaderByteFailsTheChecksum() throws IOException {
    // every byte after the length field is covered: count, time, build id, SHA-256, names, the CRC itself
    for (int at : new int[] {20, 27, 33, 45, 80, 106, headerLength - 8, headerLength - 1}) {
      byte[] b = good.clone();
      b[at] ^= 0x10;
      assertThat("flipped byte " + at, openFails(b).getMessage(),
          containsString("corrupt header (checksum mismatch)"));
    }
  }

  @Test
  void aDamagedHeaderLength() throws IOException {
    byte[] b = good.clone();
    b[15] = 3; // not a multiple of 8
    assertThat(openFails(b).getMessage(), containsString("corrupt header (length"));
  }

  @Test
  void verifyCatchesAFlippedRecordByte() throws IOException {
    byte[] b = good.clone();
    b[headerLength + 2 * width + 15] ^= 0x01; // inside the third record's sort key text
    Path f = file(b);
    try (GroupFile g = GroupFile.open(f)) { // the header is intact: opening succeeds
      IndexFormatException e = assertThrows(IndexFormatException.class, g::verify);
      assertThat(e.getMessage(), allOf(containsString(f.toString()), containsString("SHA-256 mismatch")));
    }
  }

  @Test
  void aRecordThatCannotBeDecodedIsACorruptRecord() throws IOException {
    byte[] b = good.clone();
    ByteBuffer.wrap(b).putInt(headerLength + width, 9); // tie position 9 in a run of 3
    ByteBuffer.wrap(b).putShort(headerLength + 12, (short) 4000); // a value longer than the record
    Path f = file(b);
    try (GroupFile g = GroupFile.open(f)) {
      assertThat(assertThrows(IndexFormatException.class, () -> g.record(1)).getMessage(),
          containsString("corrupt record at rank 1 (tie position 9 is outside a run of 3)"));
      assertThat(assertThrows(IndexFormatException.class, () -> g.record(0)).getMessage(),
          containsString("corrupt record at rank 0"));
      assertThrows(IndexFormatException.class, g::verify);
    }
  }
}
