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
import java.util.List;
import java.util.Objects;
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
 * Callers that hold the whole group (records in memory, or the files of its parts) write it without a spool with
 * {@link #write(Path, GroupHeader, List)} and {@link #join}.
 */
public final class GroupFileWriter implements AutoCloseable {
  /**
   * The most records whose datetimes {@link #writeVersion2} keeps from learning to encoding (8 bytes each per
   * datetime column, beside records already in memory); a larger group parses each datetime twice instead.
   */
  static final int REMEMBERED_TIMES = 1 << 22;

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
  private final FileSync sync;
  /** Version 2: what the writer learned about the group's columns and ties; null for version 1. */
  private final GroupColumns columns;
  /** Version 1: where the records' columns are learned as well, or null ({@link #write} with a {@code learn}). */
  private GroupColumns learning;
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
    this(file, header, formatVersion, FileSync.ON_FINISH);
  }

  /**
   * A file of a given format version, made durable by {@link #finish()} or left to the caller, as {@code sync} says.
   */
  public GroupFileWriter(Path file, GroupHeader header, int formatVersion, FileSync sync) throws IOException {
    if (formatVersion != GroupFileFormat.VERSION_1 && formatVersion != GroupFileFormat.VERSION_2) {
      throw new IllegalArgumentException("group file format versions are 1 and 2, not " + formatVersion);
    }
    this.target = file;
    this.version = formatVersion;
    this.sync = Objects.requireNonNull(sync, "sync");
    if (formatVersion == GroupFileFormat.VERSION_2) {
      file = file.resolveSibling(file.getFileName() + ".spool");
      this.columns = new GroupColumns(header.attributes().size());
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
    writeBack = version == GroupFileFormat.VERSION_1 && sync == FileSync.ON_FINISH; // a version-2 spool is never synced
  }

  /**
   * Writes a whole group file from records in memory, given in rank order, in the default format version; returns
   * its finished header. A version-2 file is written in one pass: its columns are learned from the records, which
   * are then encoded straight into the file (no spool, nothing read back). The header's record width must fit every
   * record ({@link #widthFor}); its count and checksum are ignored and computed.
   */
  public static GroupHeader write(Path file, GroupHeader header, List<IndexRecord> records) throws IOException {
    return write(file, header, records, GroupFileFormat.defaultVersion());
  }

  /** {@link #write(Path, GroupHeader, List)} in a given format version. */
  public static GroupHeader write(Path file, GroupHeader header, List<IndexRecord> records, int formatVersion)
      throws IOException {
    return write(file, header, records, formatVersion, FileSync.ON_FINISH);
  }

  /**
   * {@link #write(Path, GroupHeader, List)} in a given format version, made durable as {@code sync} says (a build
   * syncs all its files at once before publishing them: {@link FileSync#BY_CALLER}).
   */
  public static GroupHeader write(Path file, GroupHeader header, List<IndexRecord> records, int formatVersion,
      FileSync sync) throws IOException {
    return write(file, header, records, formatVersion, sync, null);
  }

  /**
   * {@link #write(Path, GroupHeader, List, int, FileSync)} that also learns the records' columns into {@code learn}
   * (when not null), whatever the version, for a later {@link #join(Path, GroupHeader, List, int, FileSync,
   * GroupColumns)} of this file with others: a build writes a big group's parts in parallel and learns their columns
   * there, so that the join reads them once.
   *
   * @throws IllegalArgumentException if {@code learn} has learned records already, or is for another number of
   *     attributes than the header's
   */
  public static GroupHeader write(Path file, GroupHeader header, List<IndexRecord> records, int formatVersion,
      FileSync sync, GroupColumns learn) throws IOException {
    if (learn != null && (learn.records() != 0 || learn.attributes() != header.attributes().size())) {
      throw new IllegalArgumentException("columns to learn into must be new, for " + header.attributes().size()
          + " attributes; these learned " + learn.records() + " records of " + learn.attributes());
    }
    if (formatVersion == GroupFileFormat.VERSION_2) {
      return writeVersion2(file, header, V1Records.ofRecords(records, header), sync, learn);
    }
    try (GroupFileWriter w = new GroupFileWriter(file, header, formatVersion, sync)) {
      w.learning = learn;
      if (records instanceof EncodedRecords encoded && encoded.fits(header)) {
        w.appendEncoded(encoded);
      } else {
        for (IndexRecord r : records) {
          w.append(r);
        }
      }
      return w.finish();
    }
  }

  /**
   * Writes a group file that holds the records of {@code parts} one after another (files of the header's attributes,
   * each in rank order, of either version), in the default format version; returns its finished header. Records are
   * copied as bytes, never decoded into objects; a version-2 file is encoded once, from the parts read twice (to
   * learn its columns, then to encode them), with no spool. A version-1 file is as wide as the header says, which
   * must be at least every part's {@link GroupFile#unpackedRecordWidth()}.
   */
  public static GroupHeader join(Path file, GroupHeader header, List<GroupFile> parts) throws IOException {
    return join(file, header, parts, GroupFileFormat.defaultVersion());
  }

  /** {@link #join(Path, GroupHeader, List)} in a given format version. */
  public static GroupHeader join(Path file, GroupHeader header, List<GroupFile> parts, int formatVersion)
      throws IOException {
    return join(file, header, parts, formatVersion, FileSync.ON_FINISH);
  }

  /** {@link #join(Path, GroupHeader, List)} in a given format version, made durable as {@code sync} says. */
  public static GroupHeader join(Path file, GroupHeader header, List<GroupFile> parts, int formatVersion,
      FileSync sync) throws IOException {
    return join(file, header, parts, formatVersion, sync, null);
  }

  /**
   * {@link #join(Path, GroupHeader, List, int, FileSync)} with the columns of the parts' records already learned
   * (when not null): those learned while each part was written ({@link #write(Path, GroupHeader, List, int, FileSync,
   * GroupColumns)}), joined in part order ({@link GroupColumns#then}). A version-2 file is then encoded in one read of
   * the parts instead of two. The file is the one {@code join} writes without them.
   *
   * @throws IllegalArgumentException if {@code learned} did not learn as many records as the parts hold, or of
   *     another number of attributes than the header's
   */
  public static GroupHeader join(Path file, GroupHeader header, List<GroupFile> parts, int formatVersion,
      FileSync sync, GroupColumns learned) throws IOException {
    for (GroupFile part : parts) {
      if (!part.header().attributes().equals(header.attributes())) {
        throw new IllegalArgumentException("cannot join " + part.name() + " (attributes "
            + part.header().attributes() + ") into a file of attributes " + header.attributes());
      }
    }
    long count = parts.stream().mapToLong(GroupFile::count).sum();
    if (learned != null && (learned.records() != count || learned.attributes() != header.attributes().size())) {
      throw new IllegalArgumentException("the columns given were learned from " + learned.records()
          + " records of " + learned.attributes() + " attributes; the parts hold " + count + " records of "
          + header.attributes().size());
    }
    if (formatVersion == GroupFileFormat.VERSION_2) {
      V1Records records = V1Records.ofFiles(parts);
      if (learned == null) {
        return writeVersion2(file, header, records, sync, null);
      }
      Files.createDirectories(file.getParent());
      return GroupFileV2Writer.write(records, header, file, learned.layout(count), sync);
    }
    try (GroupFileWriter w = new GroupFileWriter(file, header, formatVersion, sync)) {
      for (GroupFile part : parts) {
        part.cursor().copyRest(w);
      }
      return w.finish();
    }
  }

  /** Learns the records' columns (into {@code learn} when not null, else into new ones), then encodes them. */
  private static GroupHeader writeVersion2(Path file, GroupHeader header, V1Records records, FileSync sync,
      GroupColumns learn) throws IOException {
    GroupColumns columns = learn != null ? learn : new GroupColumns(header.attributes().size());
    if (records.count() <= REMEMBERED_TIMES) {
      columns.rememberTimes((int) records.count()); // each datetime parsed once, not once to learn and once to encode
    }
    records.forEach((b, at, rank) -> columns.addRecord(b, at));
    Files.createDirectories(file.getParent());
    try {
      return GroupFileV2Writer.write(records, header, file, columns.layout(records.count()), sync, columns.times());
    } finally {
      columns.forgetTimes(); // a caller's columns (learned for a later join) do not keep 8 bytes a record
    }
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
    int width = record.length;
    if (width > buffer.capacity()) {
      V1Records.encode(r, header, record, 0);
      write(record, 0, width);
      appended(record, 0);
      return;
    }
    if (width > buffer.remaining()) {
      drain();
    }
    // encoded straight into the write buffer: no record array, no per-record ByteBuffer, no copies of key bytes
    int start = buffer.arrayOffset() + buffer.position();
    V1Records.encode(r, header, buffer.array(), start);
    buffer.position(buffer.position() + width);
    appended(buffer.array(), start);
  }

  /** Appends records encoded at this file's width and types, as they are ({@link EncodedRecords#fits}). */
  private void appendEncoded(EncodedRecords records) throws IOException {
    byte[] all = records.bytes();
    int width = record.length;
    int perWrite = Math.max(1, buffer.capacity() / width);
    for (int rank = 0; rank < records.size(); ) {
      int n = Math.min(perWrite, records.size() - rank);
      write(all, rank * width, n * width);
      if (learning == null && columns == null) {
        sha.update(all, rank * width, n * width); // one call a write, not one a record: the same digest
        count += n;
        rank += n;
      } else {
        for (int i = 0; i < n; i++, rank++) {
          appended(all, rank * width);
        }
      }
    }
  }

  /** Counts, digests and (version 2) learns the record just written from {@code a[at]}. */
  private void appended(byte[] a, int at) {
    if (learning != null) {
      learning.addRecord(a, at);
    }
    if (columns != null) {
      columns.addRecord(a, at);
    } else {
      sha.update(a, at, record.length); // a version-2 file's checksum is of its encoded records, not the spool's
    }
    count++;
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
      if (columns == null) {
        sha.update(b.duplicate());
      }
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
        if (columns == null) {
          sha.update(record);
        }
      }
    }
    this.count += count;
  }

  /** Version 2: learns the {@code count} version-1 records of width {@code width} in {@code b}. */
  private void learn(ByteBuffer b, int width, int count) {
    int start = b.position();
    for (int i = 0; i < count; i++) {
      b.get(start + i * width, record, 0, width); // the source may be a direct buffer
      columns.addRecord(record, 0);
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
      if (version == GroupFileFormat.VERSION_1 && sync == FileSync.ON_FINISH) {
        channel.force(true);
      }
    } finally {
      finished = true;
      channel.close();
    }
    if (version == GroupFileFormat.VERSION_1) {
      return done;
    }
    try (GroupFile spool = GroupFile.open(file)) {
      return GroupFileV2Writer.write(V1Records.ofFile(spool), done, target, columns.layout(done.entryCount()), sync);
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
