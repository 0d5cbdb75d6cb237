package io.pagemark.format;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Feeds the decoder damaged group files of both versions (every truncation, every single bit flipped, random bytes
 * overwritten, and the same with the header's and tie table's checksums recomputed so that the damage reaches the
 * parsers behind them): each file either opens and reads back, or fails with {@link IndexFormatException}. Any
 * other exception (an out-of-bounds read, an arithmetic overflow, an allocation of a corrupt size) or a hang fails
 * the test.
 */
class GroupFileFuzzTest {
  private static int opened;

  /** Opens a file held in memory and reads every record and the checksum; only typed errors are allowed. */
  static void readAllowingTypedErrors(byte[] bytes, String what) {
    try (GroupFile f = GroupFile.open(new RecordSourceTest.CountingSource(bytes))) {
      opened++;
      for (long rank = 0; rank < f.count(); rank++) {
        f.record(rank);
      }
      f.forEachRecord(r -> {});
      f.verify();
    } catch (IndexFormatException expected) {
      // a typed error naming the file: what a damaged file must produce
    } catch (IOException | RuntimeException | OutOfMemoryError e) {
      AssertionError failure = new AssertionError(what + ": " + e, e);
      throw failure;
    }
  }

  static byte[] withHeaderCrcFixed(byte[] b) {
    ByteBuffer bb = ByteBuffer.wrap(b);
    int h = bb.getInt(12);
    if (h < 16 || h > b.length || h % 8 != 0) {
      return b;
    }
    CRC32C crc = new CRC32C();
    crc.update(b, 0, h - 4);
    bb.putInt(h - 4, (int) crc.getValue());
    return b;
  }

  static byte[] withTieCrcFixed(byte[] b) {
    ByteBuffer bb = ByteBuffer.wrap(b);
    int h = bb.getInt(12);
    long n = bb.getLong(24);
    long w = bb.getInt(16);
    if (bb.getShort(8) != 2 || h < 128 || h > b.length || n < 0 || w < 0 || n * w > b.length - h) {
      return b;
    }
    CRC32C crc = new CRC32C();
    crc.update(b, (int) (h + n * w), (int) (b.length - h - n * w));
    bb.putInt(120, (int) crc.getValue());
    return withHeaderCrcFixed(b);
  }

  static void fuzz(byte[] good, long seed) {
    for (int length = 0; length < good.length; length++) {
      readAllowingTypedErrors(java.util.Arrays.copyOf(good, length), "truncated to " + length);
    }
    for (int bit = 0; bit < good.length * 8; bit++) {
      byte[] b = good.clone();
      b[bit / 8] ^= (byte) (1 << (bit % 8));
      readAllowingTypedErrors(b, "bit " + bit + " flipped");
      readAllowingTypedErrors(withHeaderCrcFixed(b.clone()), "bit " + bit + " flipped, header CRC fixed");
      readAllowingTypedErrors(withTieCrcFixed(b.clone()), "bit " + bit + " flipped, both CRCs fixed");
    }
    Random r = new Random(seed);
    for (int i = 0; i < 3000; i++) {
      byte[] b = good.clone();
      int n = 1 + r.nextInt(8);
      for (int k = 0; k < n; k++) {
        int at = r.nextInt(b.length);
        b[at] = r.nextInt(3) == 0 ? (byte) 0xff : r.nextInt(2) == 0 ? 0 : (byte) r.nextInt(256);
      }
      readAllowingTypedErrors(withTieCrcFixed(b), "random damage " + i + " (seed " + seed + ")");
    }
  }

  @Test
  void damagedVersion2FilesFailWithTypedErrors() {
    opened = 0;
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> fuzz(GroupFileGoldenV2Test.golden(), 18));
    if (opened == 0) {
      fail("no damaged file opened: the fuzzing never reached the record decoder");
    }
  }

  @Test
  void damagedVersion1FilesFailWithTypedErrors() {
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> fuzz(GroupFileGoldenTest.golden(), 1));
  }
}
