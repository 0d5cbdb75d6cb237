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
 * Encodes a finished version-1 spool file as a version-2 group file with a chosen layout (docs/format-v2.md): the
 * records in one sequential pass, the tie table's runs and slots in one more pass each (only when the group has tie
 * runs and keeps them out of its records), then the header, and an fsync.
 */
final class GroupFileV2Writer {
  private GroupFileV2Writer() {}

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
      in.forEachRecord(r -> {
        java.util.Arrays.fill(record, (byte) 0);
        rb.clear();
        if (layout.inlineTies()) {
          rb.putInt(r.tiePosition());
          rb.putInt(r.runLength() | (r.runOrderKnown() ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN));
          rb.putInt(r.descendingSlot());
        }
        for (int i = 0; i < layout.codecs().size(); i++) {
          layout.codecs().get(i).encode(r.keys().get(i).bytes(), rb);
        }
        o.put(record, null);
      });
      CRC32C crc = new CRC32C();
      if (layout.runs() > 0) {
        byte[] run = new byte[16];
        long[] rank = {0};
        in.forEachRecord(r -> {
          long at = rank[0]++;
          if (r.tiePosition() == 0 && r.runLength() > 1) {
            ByteBuffer.wrap(run).putLong(0, at)
                .putInt(8, r.runLength() | (r.runOrderKnown() ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN));
            o.put(run, crc);
          }
        });
        byte[] slot = new byte[4];
        in.forEachRecord(r -> {
          if (r.runLength() > 1) {
            ByteBuffer.wrap(slot).putInt(0, r.descendingSlot());
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
