package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A group file of format version 1 or 2 opened for reading: the header (and a version-2 file's tie table) is checked
 * on open (magic, version, checksums, length), and the record at any rank is one positioned read of exactly its
 * bytes from the file's {@link RecordSource}. Thread-safe when its source is. Throws {@link IndexFormatException} for
 * a foreign, truncated or corrupt file.
 */
public final class GroupFile implements AutoCloseable {
  private final Path path;
  private final RecordSource source;
  private final GroupHeader header;
  private final int headerLength;
  /** Null for a version-1 file. */
  private final LayoutV2 layout;
  /** Null for a version-1 file or inline ties. */
  private final TieTable ties;

  private GroupFile(Path path, RecordSource source, GroupHeader header, int headerLength, LayoutV2 layout,
      TieTable ties) {
    this.path = path;
    this.source = source;
    this.header = header;
    this.headerLength = headerLength;
    this.layout = layout;
    this.ties = ties;
  }

  /** Opens and checks a local group file. */
  public static GroupFile open(Path path) throws IOException {
    return open(path, RecordSource.open(path));
  }

  /**
   * Opens and checks a group file read through {@code source} (closed with the file, or now if the check fails). The
   * header costs at most two reads: its first 16 bytes, then the rest of it.
   */
  public static GroupFile open(RecordSource source) throws IOException {
    return open(null, source);
  }

  private static GroupFile open(Path path, RecordSource source) throws IOException {
    String name = source.name();
    try {
      long size = source.size();
      if (size < 16) {
        throw new IndexFormatException(name, "truncated or not a pagemark group file (" + size + " bytes)");
      }
      ByteBuffer first = ByteBuffer.allocate(16);
      source.readFully(0, first);
      int length = GroupHeader.peekLength(name, first, size);
      ByteBuffer hb = ByteBuffer.allocate(length).put(first.flip());
      source.readFully(16, hb);
      hb.flip();
      GroupHeader h;
      LayoutV2 layout = null;
      if (first.getShort(8) == GroupFileFormat.VERSION_1) {
        h = GroupHeader.decode(name, hb);
      } else {
        HeaderV2.Decoded d = HeaderV2.decode(name, hb);
        h = d.header();
        layout = d.layout();
      }
      long records;
      try {
        records = Math.multiplyExact(h.entryCount(), (long) h.recordWidth());
      } catch (ArithmeticException e) {
        throw new IndexFormatException(name, "corrupt header (" + h.entryCount() + " records of "
            + h.recordWidth() + " bytes)");
      }
      long tieBytes = layout == null ? 0 : layout.tieTableBytes();
      long expected = length + records + tieBytes;
      if (size != expected) {
        throw new IndexFormatException(
            name,
            (size < expected ? "truncated" : "corrupt (trailing bytes)") + ": " + h.entryCount() + " records of "
                + h.recordWidth() + " bytes" + (tieBytes == 0 ? "" : " and a tie table of " + tieBytes + " bytes")
                + " need " + expected + " bytes, the file has " + size);
      }
      TieTable ties = layout == null || layout.inlineTies() ? null
          : TieTable.read(source, length + records, h.entryCount(), layout);
      return new GroupFile(path, source, h, length, layout, ties);
    } catch (IOException | RuntimeException e) {
      source.close();
      throw e;
    }
  }

  /** The file's format version, 1 or 2. */
  public int formatVersion() {
    return layout == null ? GroupFileFormat.VERSION_1 : GroupFileFormat.VERSION_2;
  }

  /**
   * The version-1 record width that holds every record of this file: its own width for a version-1 file. A writer
   * that copies this file's records into a new file declares at least this width.
   */
  public int unpackedRecordWidth() {
    return layout == null ? header.recordWidth() : layout.unpackedWidth();
  }

  public GroupHeader header() {
    return header;
  }

  /** A version-2 file's layout; null for version 1. */
  LayoutV2 layout() {
    return layout;
  }

  /** A version-2 file's tie table; null for version 1 or inline ties. */
  TieTable tieTable() {
    return ties;
  }

  /** The local file, or null when the file is read from elsewhere (see {@link #name()}). */
  public Path path() {
    return path;
  }

  /** Where the file is read from, for messages. */
  public String name() {
    return source.name();
  }

  /** Number of entries. */
  public long count() {
    return header.entryCount();
  }

  /** The record at a rank in ascending order (0-based). */
  public IndexRecord record(long rank) throws IOException {
    if (rank < 0 || rank >= header.entryCount()) {
      throw new IndexOutOfBoundsException("rank " + rank + " of " + header.entryCount());
    }
    ByteBuffer b = ByteBuffer.allocate(header.recordWidth());
    source.readFully(headerLength + rank * header.recordWidth(), b);
    return decode(b.flip(), rank);
  }

  /** Calls {@code consumer} with every record in rank order, reading the file sequentially in large blocks. */
  public void forEachRecord(RecordConsumer consumer) throws IOException {
    int width = header.recordWidth();
    int perBlock = Math.max(1, (1 << 20) / width);
    ByteBuffer block = ByteBuffer.allocate(perBlock * width);
    for (long rank = 0; rank < header.entryCount(); ) {
      int n = (int) Math.min(perBlock, header.entryCount() - rank);
      block.clear().limit(n * width);
      source.readFully(headerLength + rank * width, block);
      for (int i = 0; i < n; i++, rank++) {
        consumer.accept(decode(block.duplicate().position(i * width).limit((i + 1) * width).slice(), rank));
      }
    }
  }

  /**
   * Reads the encoded records with ranks {@code [rank, rank + count)} into {@code into} (which needs
   * {@code count * recordWidth} bytes remaining).
   */
  void readEncoded(long rank, int count, ByteBuffer into) throws IOException {
    if (rank < 0 || count < 0 || rank + count > header.entryCount()) {
      throw new IndexOutOfBoundsException("ranks " + rank + "+" + count + " of " + header.entryCount());
    }
    ByteBuffer b = into.slice().limit(count * header.recordWidth());
    source.readFully(headerLength + rank * header.recordWidth(), b);
    into.position(into.position() + b.position());
  }

  /** Receives records in rank order. */
  public interface RecordConsumer {
    void accept(IndexRecord r) throws IOException;
  }

  /** A sequential reader of this file's records that can copy unchanged runs of them to a writer. */
  public RecordCursor cursor() {
    return new RecordCursor(this);
  }

  IndexRecord decode(ByteBuffer b, long rank) throws IndexFormatException {
    if (layout != null) {
      return decodeV2(b, rank);
    }
    try {
      int tie = b.getInt();
      int runWord = b.getInt();
      int slot = b.getInt();
      List<KeyValue> keys = new ArrayList<>(header.attributes().size());
      for (KeyAttribute a : header.attributes()) {
        byte[] v = new byte[b.getShort() & 0xFFFF];
        b.get(v);
        keys.add(KeyValue.of(a.type(), v));
      }
      return new IndexRecord(
          tie,
          runWord & ~GroupFileFormat.RUN_ORDER_UNKNOWN,
          (runWord & GroupFileFormat.RUN_ORDER_UNKNOWN) == 0,
          slot,
          keys);
    } catch (RuntimeException e) {
      throw new IndexFormatException(name(), "corrupt record at rank " + rank + " (" + e.getMessage() + ")");
    }
  }

  private IndexRecord decodeV2(ByteBuffer b, long rank) throws IndexFormatException {
    try {
      int tie = 0;
      int runWord = 1;
      int slot = 0;
      if (layout.inlineTies()) {
        tie = b.getInt();
        runWord = b.getInt();
        slot = b.getInt();
      }
      List<KeyValue> keys = new ArrayList<>(header.attributes().size());
      for (int i = 0; i < layout.codecs().size(); i++) {
        keys.add(KeyValue.of(header.attributes().get(i).type(), layout.codecs().get(i).decode(b)));
      }
      if (ties != null) {
        return ties.record(rank, keys);
      }
      return new IndexRecord(tie, runWord & ~GroupFileFormat.RUN_ORDER_UNKNOWN,
          (runWord & GroupFileFormat.RUN_ORDER_UNKNOWN) == 0, slot, keys);
    } catch (RuntimeException e) {
      throw new IndexFormatException(name(), "corrupt record at rank " + rank + " (" + e.getMessage() + ")");
    }
  }

  /**
   * Reads the records with ranks {@code [rank, rank + count)} in the version-1 record layout, whatever this file's
   * version: {@link #unpackedRecordWidth()} bytes each, the tie fields (tie position, run word, descending slot), then
   * every stored value as a 2-byte length and its bytes, zero-padded (docs/file-format.md). One positioned read of
   * the records' bytes; a version-2 record is decoded into place without building objects. For readers that work on
   * record bytes (the RESP server).
   *
   * @throws IndexOutOfBoundsException when a rank is outside the group
   */
  public void readUnpacked(long rank, int count, byte[] into, int offset) throws IOException {
    if (rank < 0 || count < 0 || rank + count > header.entryCount()) {
      throw new IndexOutOfBoundsException("ranks " + rank + "+" + count + " of " + header.entryCount());
    }
    int width = header.recordWidth();
    if (layout == null) {
      source.readFully(headerLength + rank * width, ByteBuffer.wrap(into, offset, count * width));
      return;
    }
    ByteBuffer raw = ByteBuffer.allocate(count * width);
    source.readFully(headerLength + rank * width, raw);
    int unpacked = layout.unpackedWidth();
    Arrays.fill(into, offset, offset + count * unpacked, (byte) 0);
    ByteBuffer out = ByteBuffer.wrap(into);
    for (int i = 0; i < count; i++) {
      raw.limit((i + 1) * width).position(i * width);
      toVersion1(raw, rank + i, out, offset + i * unpacked);
    }
  }

  /**
   * Writes the version-1 encoding (of width {@link #unpackedRecordWidth()}, zero-padded) of this version-2 file's
   * record {@code b} at {@code rank} into {@code out} at {@code at}: what a merge copies into a new file without
   * building record objects.
   */
  void toVersion1(ByteBuffer b, long rank, ByteBuffer out, int at) throws IndexFormatException {
    try {
      if (layout.inlineTies()) {
        for (int i = 0; i < GroupFileFormat.RECORD_PREFIX_BYTES; i++) {
          out.put(at + i, b.get());
        }
      } else {
        ties.putFields(rank, out, at); // a version-2 file without inline ties always has a table (maybe empty)
      }
      byte[] array = out.array();
      int p = out.arrayOffset() + at + GroupFileFormat.RECORD_PREFIX_BYTES;
      for (ColumnCodec c : layout.codecs()) {
        int length = c.decodeInto(b, array, p + 2);
        array[p] = (byte) (length >>> 8);
        array[p + 1] = (byte) length;
        p += 2 + length;
      }
    } catch (RuntimeException e) {
      throw new IndexFormatException(name(), "corrupt record at rank " + rank + " (" + e.getMessage() + ")");
    }
  }

  /**
   * Reads every record (and a version-2 file's tie table) and checks their SHA-256 against the header; throws if
   * they differ.
   */
  public void verify() throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    ByteBuffer b = ByteBuffer.allocate(1 << 20);
    long pos = headerLength;
    long end = headerLength + header.entryCount() * header.recordWidth()
        + (layout == null ? 0 : layout.tieTableBytes());
    while (pos < end) {
      b.clear();
      b.limit((int) Math.min(b.capacity(), end - pos));
      source.readFully(pos, b);
      pos += b.position();
      sha.update(b.flip());
    }
    if (!Arrays.equals(sha.digest(), header.recordsSha256())) {
      throw new IndexFormatException(name(), "corrupt records (SHA-256 mismatch)");
    }
  }

  @Override
  public void close() throws IOException {
    source.close();
  }
}
