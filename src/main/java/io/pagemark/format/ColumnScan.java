package io.pagemark.format;

import java.nio.ByteBuffer;

/**
 * What a splice learns about one column of a version-2 group file: the {@link ColumnStats} of every value the new
 * file will hold, learned from the copied records' slots without decoding them where the codec allows. For DIGITS
 * and the DATETIME codecs, every value of a set has the same length and the same trailing characters, and byte order
 * is the order of the slots' numbers, so the set's statistics are those of its smallest and largest values: the scan
 * keeps the slots' minimum and maximum and adds only those two values. Other codecs are decoded value by value.
 */
final class ColumnScan {
  private final ColumnCodec codec;
  private final int offset; // of the slot in a record
  private final boolean numeric;
  private final ColumnStats stats = new ColumnStats();
  private final byte[] value;
  private boolean any;
  private long min = -1; // unsigned
  private long max;

  ColumnScan(ColumnCodec codec, int offset) {
    this.codec = codec;
    this.offset = offset;
    this.numeric = codec.code() == ColumnCodec.DIGITS || codec.code() == ColumnCodec.DATETIME_S
        || codec.code() == ColumnCodec.DATETIME_MS;
    this.value = new byte[codec.longestValue()];
  }

  /** Learns the values of {@code count} records of {@code width} bytes in {@code block} from {@code from}. */
  void scan(byte[] block, int from, int count, int width) {
    if (count == 0) {
      return;
    }
    if (numeric) {
      int k = codec.k();
      long lo = min;
      long hi = max;
      for (int i = 0, at = from + offset; i < count; i++, at += width) {
        long v = 0;
        for (int j = 0; j < k; j++) {
          v = (v << 8) | (block[at + j] & 0xFF);
        }
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
