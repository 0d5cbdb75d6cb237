package io.pagemark.format;

import java.nio.ByteBuffer;

/**
 * What a splice learns about one column of a version-2 group file: the {@link ColumnStats} of every value the new
 * file will hold, learned from the copied records' slots without decoding them where the codec allows. For DIGITS
 * and the DATETIME codecs, every value of a set has the same length and the same trailing characters, and byte order
 * is the order of the slots' numbers, so the set's statistics are those of its smallest and largest values: the scan
 * keeps the slots' minimum and maximum and adds only those two values; for the sort key of a group whose order is
 * byte order (S and B), the copied ranges are in slot order, so only their first and last records are read. Other
 * codecs are decoded value by value.
 */
final class ColumnScan {
  private final ColumnCodec codec;
  private final int offset; // of the slot in a record
  private final boolean numeric;
  /** The column is in slot order over the records (a numeric codec on a sort key that sorts by its bytes). */
  private final boolean sorted;
  private final ColumnStats stats = new ColumnStats();
  private final byte[] value;
  private boolean any;
  private long min = -1; // unsigned
  private long max;

  /**
   * @param offset the slot's offset in a record
   * @param byteOrdered whether the records are in the byte order of this column's values (the sort key of S or B)
   */
  ColumnScan(ColumnCodec codec, int offset, boolean byteOrdered) {
    this.codec = codec;
    this.offset = offset;
    this.numeric = codec.code() == ColumnCodec.DIGITS || codec.code() == ColumnCodec.DATETIME_S
        || codec.code() == ColumnCodec.DATETIME_MS;
    this.sorted = numeric && byteOrdered;
    this.value = new byte[codec.longestValue()];
  }

  /** Learns the values of {@code count} records of {@code width} bytes in {@code block} from {@code from}. */
  void scan(byte[] block, int from, int count, int width) {
    if (count == 0) {
      return;
    }
    if (sorted) {
      long first = slot(block, from + offset);
      long last = slot(block, from + (count - 1) * width + offset);
      min = any && Long.compareUnsigned(min, first) < 0 ? min : first;
      max = any && Long.compareUnsigned(max, last) > 0 ? max : last;
      any = true;
      return;
    }
    if (numeric) {
      long lo = min;
      long hi = max;
      for (int i = 0, at = from + offset; i < count; i++, at += width) {
        long v = slot(block, at);
        if (Long.compareUnsigned(v, lo) < 0) {
          lo = v;
        }
        if (Long.compareUnsigned(v, hi) > 0) {
          hi = v;
        }
      }
      min = lo;
      max = hi;
      any = true;
      return;
    }
    ByteBuffer b = ByteBuffer.wrap(block);
    for (int i = 0, at = from + offset; i < count; i++, at += width) {
      b.limit(at + codec.slotWidth()).position(at);
      stats.add(value, 0, codec.decodeInto(b, value, 0));
    }
  }

  /** The slot's number at {@code at}: k bytes, big-endian, unsigned. */
  private long slot(byte[] block, int at) {
    long v = 0;
    for (int j = 0, k = codec.k(); j < k; j++) {
      v = (v << 8) | (block[at + j] & 0xFF);
    }
    return v;
  }

  /** Learns one value given as bytes (a record the splice encodes). */
  void add(byte[] v) {
    stats.add(v);
  }

  /** The codec a writer chooses for every value learned. */
  ColumnCodec choose() {
    if (any) {
      stats.add(decode(min));
      stats.add(decode(max));
      any = false;
    }
    return stats.choose();
  }

  private byte[] decode(long slot) {
    ByteBuffer b = ByteBuffer.allocate(8);
    for (int i = codec.k() - 1; i >= 0; i--) {
      b.put((byte) (slot >>> (8 * i)));
    }
    return codec.decode(b.flip());
  }
}
