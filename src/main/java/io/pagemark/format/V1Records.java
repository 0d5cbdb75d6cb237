package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * A group's records in rank order, in the version-1 record layout (docs/file-format.md), that can be read more than
 * once: what a version-2 file is encoded from ({@link GroupFileV2Writer}). The records come from a spool file, from
 * the files of a group's parts one after another, or from records in memory.
 */
interface V1Records {
  int BLOCK_BYTES = 1 << 20;

  /** Records in memory up to this many bytes encoded are encoded once for every pass ({@link #ofRecords}). */
  int ENCODED_ONCE_BYTES = 16 << 20;

  /** Receives a record as the bytes of a block, the record's offset in it, and its rank in the group. */
  interface Consumer {
    void accept(byte[] block, int at, long rank) throws IOException;
  }

  /** Number of records. */
  long count();

  /** Calls {@code consumer} with every record in rank order. */
  void forEach(Consumer consumer) throws IOException;

  /** The records of group files read one after another (any version; version 2 is unpacked as it is read). */
  static V1Records ofFiles(List<GroupFile> files) {
    long count = files.stream().mapToLong(GroupFile::count).sum();
    return of(count, consumer -> {
      long base = 0;
      byte[] block = null;
      for (GroupFile f : files) {
        int width = f.unpackedRecordWidth();
        int perBlock = Math.max(1, BLOCK_BYTES / width);
        if (block == null || block.length < perBlock * width) {
          block = new byte[perBlock * width];
        }
        for (long rank = 0; rank < f.count(); ) {
          int n = (int) Math.min(perBlock, f.count() - rank);
          f.readUnpacked(rank, n, block, 0);
          for (int i = 0; i < n; i++, rank++) {
            consumer.accept(block, i * width, base + rank);
          }
        }
        base += f.count();
      }
    });
  }

  /**
   * Records in memory, encoded with {@code header}'s attributes and record width. When they take at most {@value
   * #ENCODED_ONCE_BYTES} bytes encoded (a part of a build does), the first pass encodes them into one array that later
   * passes read (each record is encoded once however many passes read it); bigger lists are encoded a block at a time
   * on every pass, so that memory use stays one block whatever the group's size. {@link EncodedRecords} of the
   * header's types and width are read as they are.
   *
   * @throws IllegalArgumentException (from {@link #forEach}) when a record does not fit the header
   */
  static V1Records ofRecords(List<IndexRecord> records, GroupHeader header) {
    return ofRecords(records, header, ENCODED_ONCE_BYTES);
  }

  /** {@link #ofRecords(List, GroupHeader)} with another bound than {@value #ENCODED_ONCE_BYTES} bytes (tests). */
  static V1Records ofRecords(List<IndexRecord> records, GroupHeader header, long encodedOnceBytes) {
    int width = header.recordWidth();
    if (records instanceof EncodedRecords bytes && bytes.fits(header)) {
      return ofEncoded(bytes);
    }
    if ((long) records.size() * width > encodedOnceBytes) {
      return inBlocks(records, header);
    }
    byte[][] encoded = new byte[1][];
    return inArray(() -> {
      if (encoded[0] == null) { // on the first pass, so that a record that does not fit fails there
        byte[] all = new byte[records.size() * width];
        for (int rank = 0; rank < records.size(); rank++) {
          encode(records.get(rank), header, all, rank * width);
        }
        encoded[0] = all;
      }
      return encoded[0];
    }, width, records.size());
  }

  /** Records held encoded already, read as they are on every pass. */
  static V1Records ofEncoded(EncodedRecords records) {
    return inArray(records::bytes, records.width(), records.size());
  }

  /** {@code count} records of {@code width} bytes one after another in the array {@code bytes} gives each pass. */
  private static V1Records inArray(java.util.function.Supplier<byte[]> bytes, int width, int count) {
    return of(count, consumer -> {
      byte[] all = bytes.get();
      for (int rank = 0; rank < count; rank++) {
        consumer.accept(all, rank * width, rank);
      }
    });
  }

  /** Records in memory, encoded a block at a time on every pass. */
  private static V1Records inBlocks(List<IndexRecord> records, GroupHeader header) {
    return of(records.size(), consumer -> {
      int width = header.recordWidth();
      int perBlock = Math.max(1, BLOCK_BYTES / width);
      byte[] block = new byte[Math.min(perBlock, Math.max(1, records.size())) * width];
      for (int rank = 0; rank < records.size(); ) {
        int n = Math.min(perBlock, records.size() - rank);
        for (int i = 0; i < n; i++) {
          encode(records.get(rank + i), header, block, i * width);
        }
        for (int i = 0; i < n; i++, rank++) {
          consumer.accept(block, i * width, rank);
        }
      }
    });
  }

  /** What {@link #forEach} does: one pass over the records. */
  interface Pass {
    void run(Consumer consumer) throws IOException;
  }

  /** {@code count} records that {@code pass} gives, in rank order, on every pass. */
  private static V1Records of(long count, Pass pass) {
    return new V1Records() {
      @Override
      public long count() {
        return count;
      }

      @Override
      public void forEach(Consumer consumer) throws IOException {
        pass.run(consumer);
      }
    };
  }

  /**
   * Encodes {@code r} as a version-1 record of {@code header}'s width at {@code a[start]}, zero-padded, after checking
   * that it fits the header: its attributes' number and types, each value's length.
   */
  static void encode(IndexRecord r, GroupHeader header, byte[] a, int start) {
    List<KeyValue> keys = r.keys();
    List<KeyAttribute> attributes = header.attributes();
    if (keys.size() != attributes.size()) {
      throw new IllegalArgumentException(
          "record has " + keys.size() + " key values; the header declares " + attributes.size());
    }
    int end = start + header.recordWidth();
    if (end - start < GroupFileFormat.RECORD_PREFIX_BYTES) {
      throw new IllegalArgumentException("record needs more than the header's width of " + header.recordWidth()
          + " bytes");
    }
    int p = putInt(a, start, r.tiePosition());
    p = putInt(a, p, r.runLength() | (r.runOrderKnown() ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN));
    p = putInt(a, p, r.descendingSlot());
    for (int i = 0; i < keys.size(); i++) {
      KeyValue k = keys.get(i);
      KeyAttribute attribute = attributes.get(i);
      if (k.type() != attribute.type()) {
        throw new IllegalArgumentException("attribute " + attribute.name() + " is declared " + attribute.type()
            + " but the record holds " + k.type());
      }
      int length = k.length();
      if (length > GroupFileFormat.MAX_VALUE_BYTES) {
        // the length field is two bytes: a longer value would be stored with a wrapped length
        throw new IllegalArgumentException(
            "attribute " + attribute.name() + " holds " + length + " bytes; the format stores at most 65535");
      }
      if (end - p < 2 + length) {
        throw new IllegalArgumentException(
            "record needs more than the header's width of " + header.recordWidth() + " bytes");
      }
      a[p] = (byte) (length >>> 8);
      a[p + 1] = (byte) length;
      k.copyTo(a, p + 2);
      p += 2 + length;
    }
    Arrays.fill(a, p, end, (byte) 0);
  }

  static int putInt(byte[] a, int p, int v) {
    a[p] = (byte) (v >>> 24);
    a[p + 1] = (byte) (v >>> 16);
    a[p + 2] = (byte) (v >>> 8);
    a[p + 3] = (byte) v;
    return p + 4;
  }

  static int getInt(byte[] a, int p) {
    return ((a[p] & 0xFF) << 24) | ((a[p + 1] & 0xFF) << 16) | ((a[p + 2] & 0xFF) << 8) | (a[p + 3] & 0xFF);
  }

  /** A version-1 file's records (a spool), read a block at a time. */
  static V1Records ofFile(GroupFile file) {
    return ofFiles(List.of(file));
  }
}
