package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Writes one group file from records given in rank order, streaming: memory use does not grow with the group. The
 * header (count and checksum) is written last, so a file is complete only after {@link #finish()}; callers write into
 * a build directory that is published only when every file is finished.
 */
public final class GroupFileWriter implements AutoCloseable {
  private final Path file;
  private final GroupHeader header;
  private final int headerLength;
  private final OutputStream out;
  private final MessageDigest sha;
  private final byte[] record;
  private long count;
  private boolean finished;

  /**
   * Starts a file. The header's record width must fit every record that will be appended; its count and checksum
   * are ignored and computed.
   */
  public GroupFileWriter(Path file, GroupHeader header) throws IOException {
    this.file = file;
    this.header = header;
    this.headerLength = header.length();
    this.record = new byte[header.recordWidth()];
    try {
      this.sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Files.createDirectories(file.getParent());
    OutputStream raw =
        Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
    this.out = new BufferedOutputStream(raw, 1 << 16);
    out.write(new byte[headerLength]); // placeholder until finish()
  }

  /** The record width needed for a record holding these key values. */
  public static int widthFor(Iterable<KeyValue> keys) {
    int w = GroupFileFormat.RECORD_PREFIX_BYTES;
    for (KeyValue k : keys) {
      w += 2 + k.length();
    }
    return w;
  }

  /** Appends the record at the next rank. */
  public void append(IndexRecord r) throws IOException {
    if (r.keys().size() != header.attributes().size()) {
      throw new IllegalArgumentException(
          "record has " + r.keys().size() + " key values; the header declares " + header.attributes().size());
    }
    ByteBuffer b = ByteBuffer.wrap(record);
    java.util.Arrays.fill(record, (byte) 0);
    b.putInt(r.tiePosition());
    b.putInt(r.runLength() | (r.runOrderKnown() ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN));
    b.putInt(r.descendingSlot());
    for (int i = 0; i < r.keys().size(); i++) {
      KeyValue k = r.keys().get(i);
      if (k.type() != header.attributes().get(i).type()) {
        throw new IllegalArgumentException(
            "attribute " + header.attributes().get(i).name() + " is declared " + header.attributes().get(i).type()
                + " but the record holds " + k.type());
      }
      byte[] v = k.bytes();
      if (b.remaining() < 2 + v.length) {
        throw new IllegalArgumentException(
            "record needs more than the header's width of " + header.recordWidth() + " bytes");
      }
      b.putShort((short) v.length);
      b.put(v);
    }
    out.write(record);
    sha.update(record);
    count++;
  }

  /**
   * Appends the records of {@code source} with ranks {@code [from, to)} as they are, each widened with zeros to this
   * file's record width: a sequential copy with no decoding. The source must store the same attributes, and its
   * records must not be wider than this file's.
   */
  public void copyRecords(GroupFile source, long from, long to) throws IOException {
    GroupHeader h = source.header();
    if (!h.attributes().equals(header.attributes())) {
      throw new IllegalArgumentException(
          "cannot copy records of " + source.path() + ": it stores " + h.attributes() + ", this file "
              + header.attributes());
    }
    int width = h.recordWidth();
    if (width > header.recordWidth()) {
      throw new IllegalArgumentException(
          "cannot copy records of width " + width + " into a file of width " + header.recordWidth());
    }
    int perBlock = Math.max(1, (1 << 20) / width);
    ByteBuffer block = ByteBuffer.allocate(perBlock * width);
    for (long rank = from; rank < to; ) {
      int n = (int) Math.min(perBlock, to - rank);
      block.clear();
      source.readEncoded(rank, n, block);
      if (width == header.recordWidth()) {
        out.write(block.array(), 0, n * width);
        sha.update(block.array(), 0, n * width);
      } else {
        for (int i = 0; i < n; i++) {
          java.util.Arrays.fill(record, (byte) 0);
          System.arraycopy(block.array(), i * width, record, 0, width);
          out.write(record);
          sha.update(record);
        }
      }
      count += n;
      rank += n;
    }
  }

  /** Writes the header with the final count and checksum and closes the file; returns that header. */
  public GroupHeader finish() throws IOException {
    out.close();
    GroupHeader done = header.finished(count, sha.digest());
    byte[] h = done.encode();
    if (h.length != headerLength) {
      throw new IllegalStateException("header length changed while writing");
    }
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer hb = ByteBuffer.wrap(h);
      while (hb.hasRemaining()) {
        ch.write(hb, hb.position());
      }
      ch.force(true);
    }
    finished = true;
    return done;
  }

  @Override
  public void close() throws IOException {
    if (!finished) {
      out.close();
    }
  }
}
