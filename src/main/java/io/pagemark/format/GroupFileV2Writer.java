package io.pagemark.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32C;

/**
 * Encodes a group's records, given in the version-1 layout ({@link V1Records}: a spool file, the files of a group's
 * parts, or records in memory), as a version-2 group file with a chosen layout (docs/format-v2.md), straight from the
 * record bytes (no record is decoded into objects): the records in one sequential pass, the tie table's runs and slots
 * in one more pass each (only when the group has tie runs and keeps them out of its records), then the header, and an
 * fsync unless the caller syncs the file itself ({@link FileSync}). The stream writer, {@link GroupFileWriter#write}
 * and {@link GroupFileWriter#join} all encode here, so they write the same bytes for the same records
 * ({@link GroupFileSplice} copies a base file's encoded records instead).
 */
final class GroupFileV2Writer {
  private GroupFileV2Writer() {}

  /**
   * Writes {@code target} from {@code in}; returns the header written. {@code header} gives the group, attributes and
   * build; its width, count and checksum are replaced by the layout's width, {@code in}'s count and the checksum of
   * what is written. With {@link FileSync#ON_FINISH} the file is durable when this returns.
   */
  static GroupHeader write(V1Records in, GroupHeader header, Path target, LayoutV2 layout, FileSync sync)
      throws IOException {
    return write(in, header, target, layout, sync, null);
  }

  /**
   * {@link #write(V1Records, GroupHeader, Path, LayoutV2, FileSync)} with, per stored attribute, the time of each
   * record in {@code in}'s order where it was kept while the columns were learned ({@link GroupColumns#times}; null,
   * or a null attribute, where not): a datetime column is then encoded from those instead of parsing each value
   * again. The same bytes either way.
   */
  static GroupHeader write(V1Records in, GroupHeader header, Path target, LayoutV2 layout, FileSync sync,
      long[][] times) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      int width = layout.width();
      GroupHeader unfinished = new GroupHeader(header.groupAttribute(), header.groupKey(), header.attributes(), width,
          in.count(), header.buildTimeMillis(), header.buildId(), new byte[32]);
      int headerLength = HeaderV2.encode(unfinished, layout).length; // the tie table's fields have a fixed width
      // what follows the header: the records, then each run's 16 bytes and each slot's 4 (see below)
      long body = (long) in.count() * width + 16L * layout.runs() + 4L * layout.slots();
      Output o = new Output(out, headerLength, sha, body);
      byte[] record = new byte[width];
      ByteBuffer rb = ByteBuffer.wrap(record);
      ColumnCodec[] codecs = layout.codecs().toArray(new ColumnCodec[0]);
      long[][] kept = new long[codecs.length][];
      for (int c = 0; c < codecs.length; c++) {
        kept[c] = times != null && codecs[c].isDatetime() ? times[c] : null;
      }
      in.forEach((b, at, rank) -> {
        java.util.Arrays.fill(record, (byte) 0);
        rb.clear();
        if (layout.inlineTies()) {
          rb.put(b, at, GroupFileFormat.RECORD_PREFIX_BYTES);
        }
        int p = at + GroupFileFormat.RECORD_PREFIX_BYTES;
        for (int c = 0; c < codecs.length; c++) {
          int length = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
          if (kept[c] != null) {
            codecs[c].encodeTime(kept[c][(int) rank], rb); // learned in rank order
          } else {
            codecs[c].encode(b, p + 2, length, rb);
          }
          p += 2 + length;
        }
        o.put(record, null);
      });
      CRC32C crc = new CRC32C();
      if (layout.runs() > 0) {
        byte[] run = new byte[16];
        ByteBuffer runBuffer = ByteBuffer.wrap(run);
        in.forEach((b, at, rank) -> {
          int runWord = V1Records.getInt(b, at + 4);
          if (V1Records.getInt(b, at) == 0 && (runWord & ~GroupFileFormat.RUN_ORDER_UNKNOWN) > 1) {
            runBuffer.putLong(0, rank).putInt(8, runWord);
            o.put(run, crc);
          }
        });
        byte[] slot = new byte[4];
        in.forEach((b, at, rank) -> {
          if ((V1Records.getInt(b, at + 4) & ~GroupFileFormat.RUN_ORDER_UNKNOWN) > 1) {
            System.arraycopy(b, at + 8, slot, 0, 4);
            o.put(slot, crc);
          }
        });
      }
      o.flush();
      GroupHeader done = unfinished.finished(unfinished.entryCount(), sha.digest());
      byte[] h = HeaderV2.encode(done, layout.withTieTable(layout.runs(), layout.slots(), (int) crc.getValue()));
      ByteBuffer hb = ByteBuffer.wrap(h);
      while (hb.hasRemaining()) {
        out.write(hb, hb.position());
      }
      if (sync == FileSync.ON_FINISH) {
        out.force(true);
      }
      return done;
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(target); // a half-written file is no use to anyone: none is left behind
      throw e;
    }
  }

  /**
   * A buffered sequential writer after the header that digests what it writes. Its buffer is at most {@value
   * #BUFFER_BYTES} bytes, and no larger than what will be written: a build writes thousands of small group files, and
   * a 64 KB buffer for each was a tenth of what a 10 M-entry build of 10,000 groups allocated while it wrote them.
   * The digest takes a buffer at a time as it is written, not a record at a time: the same bytes in the same order
   * give the same digest, and a call per record of about 30 bytes cost as much again as digesting them.
   */
  private static final class Output {
    static final int BUFFER_BYTES = 1 << 16;

    private final FileChannel channel;
    private final MessageDigest sha;
    private final ByteBuffer buffer;
    private long position;

    Output(FileChannel channel, long start, MessageDigest sha, long bytes) {
      this.channel = channel;
      this.position = start;
      this.sha = sha;
      this.buffer = ByteBuffer.allocate((int) Math.max(16, Math.min(BUFFER_BYTES, bytes)));
    }

    void put(byte[] b, CRC32C crc) throws IOException {
      if (buffer.remaining() < b.length) {
        flush();
      }
      if (b.length > buffer.capacity()) {
        sha.update(b); // the buffer is empty (flushed above): the digest keeps the order of the bytes
        ByteBuffer big = ByteBuffer.wrap(b);
        while (big.hasRemaining()) {
          position += channel.write(big, position);
        }
      } else {
        buffer.put(b);
      }
      if (crc != null) {
        crc.update(b);
      }
    }

    void flush() throws IOException {
      sha.update(buffer.array(), buffer.arrayOffset(), buffer.position());
      buffer.flip();
      while (buffer.hasRemaining()) {
        position += channel.write(buffer, position);
      }
      buffer.clear();
    }
  }
}
