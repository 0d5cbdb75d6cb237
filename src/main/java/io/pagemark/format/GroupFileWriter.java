package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * Writes one group file from records given in rank order, streaming: memory use does not grow with the group. The
 * header (count and checksum) is written last, so a file is complete only after {@link #finish()}; callers write into
 * a build directory that is published only when every file is finished. A version-2 file (the default) is written
 * in two passes: the records go to a version-1 spool file beside it while the writer learns the group's columns,
 * and {@link #finish()} encodes the spool with the codecs chosen for them (docs/format-v2.md), then deletes it.
 */
public final class GroupFileWriter implements AutoCloseable {
  private static final int BUFFER_BYTES = 1 << 16;
  /** Bytes written between two background flushes once {@link #startWriteBack()} was called. */
  private static final long WRITE_BACK_BYTES = 32L << 20;
  /** Runs the background flushes; daemon threads that end when idle. */
  private static final Executor WRITE_BACK = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "pagemark-write-back");
    t.setDaemon(true);
    return t;
  });

  private final Path file;
  /** The file to write; {@link #file} is its spool when it is a version-2 file. */
  private final Path target;
  private final int version;
  /** Version 2: what the writer learned about each stored attribute; null for version 1. */
  private final ColumnStats[] columns;
  private long tieRuns;
  private long tiedEntries;
  private final GroupHeader header;
  private final int headerLength;
  private final FileChannel channel;
  private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
  private final MessageDigest sha;
  private final byte[] record;
  private long count;
  private boolean finished;
  private boolean writeBack;
  private long writtenBytes;
  private long flushedAt;
  private CompletableFuture<Void> flushing = CompletableFuture.completedFuture(null);

  /**
   * Starts a file. The header's record width must fit every record that will be appended; its count and checksum
   * are ignored and computed.
   */
  public GroupFileWriter(Path file, GroupHeader header) throws IOException {
    this(file, header, GroupFileFormat.defaultVersion());
  }

  /**
   * Starts a file of a given format version ({@link GroupFileFormat#VERSION_1} or {@link GroupFileFormat#VERSION_2};
   * readers read both). The header's record width is the version-1 width that fits every record (see {@link
   * #widthFor}) whatever the version.
   */
  public GroupFileWriter(Path file, GroupHeader header, int formatVersion) throws IOException {
    if (formatVersion != GroupFileFormat.VERSION_1 && formatVersion != GroupFileFormat.VERSION_2) {
      throw new IllegalArgumentException("group file format versions are 1 and 2, not " + formatVersion);
    }
    this.target = file;
    this.version = formatVersion;
    if (formatVersion == GroupFileFormat.VERSION_2) {
      file = file.resolveSibling(file.getFileName() + ".spool");
      this.columns = new ColumnStats[header.attributes().size()];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = new ColumnStats();
      }
    } else {
      this.columns = null;
    }
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
    this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE);
    write(new byte[headerLength], 0, headerLength); // placeholder until finish()
  }

  /**
   * From now on, hands the written records to the disk in the background, every 32 MiB, so that {@link #finish()}'s
   * fsync waits for the tail of the file only, not for all of it. For a large file whose writer waits for it (a
   * commit); the file is durable only after {@code finish()} either way.
   */
  public void startWriteBack() {
    writeBack = version == GroupFileFormat.VERSION_1; // a version-2 spool is never synced
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
    java.util.List<KeyValue> keys = r.keys();
    if (keys.size() != header.attributes().size()) {
      throw new IllegalArgumentException(
          "record has " + keys.size() + " key values; the header declares " + header.attributes().size());
    }
    int width = record.length;
    if (width > buffer.capacity() || width < GroupFileFormat.RECORD_PREFIX_BYTES) {
      appendWide(r);
      return;
    }
    if (width > buffer.remaining()) {
      drain();
    }
    // encoded straight into the write buffer: no record array, no per-record ByteBuffer, no copies of key bytes
    byte[] a = buffer.array();
    int start = buffer.arrayOffset() + buffer.position();
    int end = start + width;
    int p = putInt(a, start, r.tiePosition());
    p = putInt(a, p, r.runLength() | (r.runOrderKnown() ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN));
    p = putInt(a, p, r.descendingSlot());
    for (int i = 0; i < keys.size(); i++) {
      KeyValue k = keys.get(i);
      int length = checked(k, i);
      if (end - p < 2 + length) {
        throw new IllegalArgumentException(
            "record needs more than the header's width of " + header.recordWidth() + " bytes");
      }
      a[p] = (byte) (length >>> 8);
      a[p + 1] = (byte) length;
      k.copyTo(a, p + 2);
      if (columns != null) {
        columns[i].add(a, p + 2, length);
      }
      p += 2 + length;
    }
    java.util.Arrays.fill(a, p, end, (byte) 0);
    countTies(r);
    sha.update(a, start, width);
    buffer.position(buffer.position() + width);
    count++;
  }

  /** {@link #append} of a record wider than the write buffer. */
  private void appendWide(IndexRecord r) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(record);
    java.util.Arrays.fill(record, (byte) 0);
    b.putInt(r.tiePosition());
    b.putInt(r.runLength() | (r.runOrderKnown() ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN));
    b.putInt(r.descendingSlot());
    for (int i = 0; i < r.keys().size(); i++) {
      KeyValue k = r.keys().get(i);
      int length = checked(k, i);
      if (b.remaining() < 2 + length) {
        throw new IllegalArgumentException(
            "record needs more than the header's width of " + header.recordWidth() + " bytes");
      }
      byte[] v = k.bytes();
      b.putShort((short) v.length);
      b.put(v);
      if (columns != null) {
        columns[i].add(v);
      }
    }
    countTies(r);
    write(record, 0, record.length);
    sha.update(record);
    count++;
  }

  /** The length of attribute {@code i}'s value, after checking its type and that its length fits the format. */
  private int checked(KeyValue k, int i) {
    KeyAttribute attribute = header.attributes().get(i);
    if (k.type() != attribute.type()) {
      throw new IllegalArgumentException(
          "attribute " + attribute.name() + " is declared " + attribute.type() + " but the record holds " + k.type());
    }
    if (k.length() > GroupFileFormat.MAX_VALUE_BYTES) {
      // the length field is two bytes: a longer value would be stored with a wrapped length
      throw new IllegalArgumentException(
          "attribute " + attribute.name() + " holds " + k.length() + " bytes; the format stores at most 65535");
    }
    return k.length();
  }

  private void countTies(IndexRecord r) {
    if (columns != null && r.tiePosition() == 0 && r.runLength() > 1) {
      tieRuns++;
      tiedEntries += r.runLength();
    }
  }

  private static int putInt(byte[] a, int p, int v) {
    a[p] = (byte) (v >>> 24);
    a[p + 1] = (byte) (v >>> 16);
    a[p + 2] = (byte) (v >>> 8);
    a[p + 3] = (byte) v;
    return p + 4;
  }

  /**
   * Appends the records encoded with width {@code sourceWidth} (at most this file's) in {@code b}'s remaining
   * bytes, unchanged but for the zero padding to this file's width; consumes {@code b}. Used by {@link RecordCursor}
   * to copy runs of records of a file with the same attributes.
   */
  void appendEncoded(ByteBuffer b, int sourceWidth) throws IOException {
    if (sourceWidth > header.recordWidth()) {
      throw new IllegalArgumentException(
          "cannot copy records of width " + sourceWidth + " into a file of width " + header.recordWidth());
    }
    int count = b.remaining() / sourceWidth;
    if (columns != null) {
      learn(b.duplicate(), sourceWidth, count);
    }
    if (sourceWidth == header.recordWidth()) {
      sha.update(b.duplicate());
      if (b.remaining() > buffer.remaining()) {
        drain();
      }
      if (b.remaining() < buffer.capacity()) {
        buffer.put(b);
      } else {
        writeFully(b);
      }
    } else {
      for (int i = 0; i < count; i++) {
        java.util.Arrays.fill(record, (byte) 0);
        b.get(record, 0, sourceWidth);
        write(record, 0, record.length);
        sha.update(record);
      }
    }
    this.count += count;
  }

  /** Version 2: adds the values and runs of {@code count} version-1 records in {@code b} to what was learned. */
  private void learn(ByteBuffer b, int width, int count) {
    int start = b.position();
    byte[] value = new byte[width];
    for (int i = 0; i < count; i++) {
      int at = start + i * width;
      if (b.getInt(at) == 0 && (b.getInt(at + 4) & ~GroupFileFormat.RUN_ORDER_UNKNOWN) > 1) {
        tieRuns++;
        tiedEntries += b.getInt(at + 4) & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
      }
      int p = at + GroupFileFormat.RECORD_PREFIX_BYTES;
      for (ColumnStats c : columns) {
        int length = b.getShort(p) & 0xFFFF;
        b.get(p + 2, value, 0, length);
        c.add(value, 0, length);
        p += 2 + length;
      }
    }
  }

  private void write(byte[] b, int offset, int length) throws IOException {
    if (length > buffer.remaining()) {
      drain();
    }
    if (length < buffer.capacity()) {
      buffer.put(b, offset, length);
    } else {
      writeFully(ByteBuffer.wrap(b, offset, length));
    }
  }

  /** Writes the buffer to the file. */
  private void drain() throws IOException {
    buffer.flip();
    writeFully(buffer);
    buffer.clear();
  }

  /** Writes {@code b} to the file; starts a background flush when one is due and none is running. */
  private void writeFully(ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      writtenBytes += channel.write(b);
    }
    if (writeBack && writtenBytes - flushedAt >= WRITE_BACK_BYTES && flushing.isDone()) {
      awaitFlush(); // reports a failed earlier flush now rather than at finish()
      flushedAt = writtenBytes;
      flushing = CompletableFuture.runAsync(() -> {
        try {
          channel.force(false);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }, WRITE_BACK);
    }
  }

  private void awaitFlush() throws IOException {
    try {
      flushing.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while " + file + " was flushed to disk");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof UncheckedIOException u ? u.getCause()
          : new IOException("flushing " + file + " to disk failed", cause);
    }
  }

  /** The header this file is written with (count and checksum not final). */
  GroupHeader header() {
    return header;
  }

  /** Writes the header with the final count and checksum and closes the file; returns that header. */
  public GroupHeader finish() throws IOException {
    GroupHeader done;
    try {
      drain();
      awaitFlush();
      done = header.finished(count, sha.digest());
      byte[] h = done.encode();
      if (h.length != headerLength) {
        throw new IllegalStateException("header length changed while writing");
      }
      ByteBuffer hb = ByteBuffer.wrap(h);
      while (hb.hasRemaining()) {
        channel.write(hb, hb.position());
      }
      if (version == GroupFileFormat.VERSION_1) {
        channel.force(true);
      }
    } finally {
      finished = true;
      channel.close();
    }
    if (version == GroupFileFormat.VERSION_1) {
      return done;
    }
    try {
      ColumnCodec[] codecs = new ColumnCodec[columns.length];
      for (int i = 0; i < codecs.length; i++) {
        codecs[i] = columns[i].choose();
      }
      // a group of mostly ties keeps its tie fields in the records: its open then reads no large table
      boolean inline = tiedEntries > done.entryCount() / 8;
      LayoutV2 layout = new LayoutV2(java.util.List.of(codecs), inline, inline ? 0 : tieRuns,
          inline ? 0 : tiedEntries, 0);
      return GroupFileV2Writer.write(file, target, layout);
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Override
  public void close() throws IOException {
    if (!finished) {
      finished = true;
      try (channel) {
        drain(); // what was appended stays in the file, behind the zero header no reader accepts
        flushing.join();
      } catch (RuntimeException e) {
        // the file is abandoned: a failed background flush of it does not matter
      }
      if (version == GroupFileFormat.VERSION_2) {
        Files.deleteIfExists(file);
      }
    }
  }
}
