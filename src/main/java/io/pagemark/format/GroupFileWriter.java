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
      if (v.length > GroupFileFormat.MAX_VALUE_BYTES) {
        // the length field is two bytes: a longer value would be stored with a wrapped length
        throw new IllegalArgumentException(
            "attribute " + header.attributes().get(i).name() + " holds " + v.length
                + " bytes; the format stores at most 65535");
      }
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
   * Appends {@code count} records encoded with width {@code sourceWidth} (at most this file's) from {@code b} at
   * {@code offset}, unchanged but for the zero padding to this file's width. Used by {@link RecordCursor} to copy
   * runs of records of a file with the same attributes.
   */
  void appendEncoded(byte[] b, int offset, int count, int sourceWidth) throws IOException {
    if (sourceWidth > header.recordWidth()) {
      throw new IllegalArgumentException(
          "cannot copy records of width " + sourceWidth + " into a file of width " + header.recordWidth());
    }
    if (sourceWidth == header.recordWidth()) {
      out.write(b, offset, count * sourceWidth);
      sha.update(b, offset, count * sourceWidth);
    } else {
      for (int i = 0; i < count; i++) {
        java.util.Arrays.fill(record, (byte) 0);
        System.arraycopy(b, offset + i * sourceWidth, record, 0, sourceWidth);
        out.write(record);
        sha.update(record);
      }
    }
    this.count += count;
  }

  /** The header this file is written with (count and checksum not final). */
  GroupHeader header() {
    return header;
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
