package io.pagemark.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32C;

/**
 * Encodes a finished version-1 spool file as a version-2 group file with a chosen layout (docs/format-v2.md),
 * straight from the spool's record bytes (no record is decoded into objects): the records in one sequential pass,
 * the tie table's runs and slots in one more pass each (only when the group has tie runs and keeps them out of its
 * records), then the header, and an fsync.
 */
final class GroupFileV2Writer {
  private static final int BLOCK_BYTES = 1 << 20;

  private GroupFileV2Writer() {}

  /** Receives the spool's records, one at a time, as the bytes of a block and the record's offset in it. */
  private interface SpoolRecord {
    void accept(byte[] block, int at, long rank) throws IOException;
  }

  /** Writes {@code target} from {@code spool}; returns the header written. */
  static GroupHeader write(Path spool, Path target, LayoutV2 layout) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    try (GroupFile in = GroupFile.open(spool);
        FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      GroupHeader spooled = in.header();
      int headerLength = HeaderV2.encode(spooled, layout).length; // the tie table's fields have a fixed width
      Output o = new Output(out, headerLength, sha);
      int width = layout.width();
      byte[] record = new byte[width];
      ByteBuffer rb = ByteBuffer.wrap(record);
      ColumnCodec[] codecs = layout.codecs().toArray(new ColumnCodec[0]);
      forEach(in, (b, at, rank) -> {
        java.util.Arrays.fill(record, (byte) 0);
        rb.clear();
        if (layout.inlineTies()) {
          rb.put(b, at, GroupFileFormat.RECORD_PREFIX_BYTES);
        }
        int p = at + GroupFileFormat.RECORD_PREFIX_BYTES;
        for (ColumnCodec c : codecs) {
          int length = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
          c.encode(b, p + 2, length, rb);
          p += 2 + length;
        }
        o.put(record, null);
      });
      CRC32C crc = new CRC32C();
      if (layout.runs() > 0) {
        byte[] run = new byte[16];
        ByteBuffer runBuffer = ByteBuffer.wrap(run);
        forEach(in, (b, at, rank) -> {
          ByteBuffer r = ByteBuffer.wrap(b);
          int runWord = r.getInt(at + 4);
          if (r.getInt(at) == 0 && (runWord & ~GroupFileFormat.RUN_ORDER_UNKNOWN) > 1) {
            runBuffer.putLong(0, rank).putInt(8, runWord);
            o.put(run, crc);
          }
        });
        byte[] slot = new byte[4];
        forEach(in, (b, at, rank) -> {
          if ((ByteBuffer.wrap(b).getInt(at + 4) & ~GroupFileFormat.RUN_ORDER_UNKNOWN) > 1) {
            System.arraycopy(b, at + 8, slot, 0, 4);
            o.put(slot, crc);
          }
        });
      }
      o.flush();
      GroupHeader done = new GroupHeader(spooled.groupAttribute(), spooled.groupKey(), spooled.attributes(), width,
          spooled.entryCount(), spooled.buildTimeMillis(), spooled.buildId(), sha.digest());
      byte[] h = HeaderV2.encode(done, layout.withTieTable(layout.runs(), layout.slots(), (int) crc.getValue()));
      ByteBuffer hb = ByteBuffer.wrap(h);
      while (hb.hasRemaining()) {
        out.write(hb, hb.position());
      }
      out.force(true);
      return done;
    }
  }

  /** Calls {@code consumer} with every record of the (version-1) spool, read in blocks. */
  private static void forEach(GroupFile in, SpoolRecord consumer) throws IOException {
    int width = in.header().recordWidth();
    int perBlock = Math.max(1, BLOCK_BYTES / width);
    byte[] block = new byte[perBlock * width];
    for (long rank = 0; rank < in.count(); ) {
      int n = (int) Math.min(perBlock, in.count() - rank);
      in.readEncoded(rank, n, ByteBuffer.wrap(block, 0, n * width));
      for (int i = 0; i < n; i++, rank++) {
        consumer.accept(block, i * width, rank);
      }
    }
  }

  /** A buffered sequential writer after the header that digests what it writes. */
  private static final class Output {
    private final FileChannel channel;
    private final MessageDigest sha;
    private final ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
    private long position;

    Output(FileChannel channel, long start, MessageDigest sha) {
      this.channel = channel;
      this.position = start;
      this.sha = sha;
    }

    void put(byte[] b, CRC32C crc) throws IOException {
      if (buffer.remaining() < b.length) {
        flush();
      }
      if (b.length > buffer.capacity()) {
        ByteBuffer big = ByteBuffer.wrap(b);
        while (big.hasRemaining()) {
          position += channel.write(big, position);
        }
      } else {
        buffer.put(b);
      }
      sha.update(b);
      if (crc != null) {
        crc.update(b);
      }
    }

    void flush() throws IOException {
      buffer.flip();
      while (buffer.hasRemaining()) {
        position += channel.write(buffer, position);
      }
      buffer.clear();
    }
  }
}
