package io.pagemark.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The runs of equal sort keys of a version-2 group file, read whole and checked when the file is opened, then kept
 * with it: a record's tie fields are a binary search here, no read. Immutable and thread-safe.
 */
final class TieTable {
  static final TieTable EMPTY = new TieTable(new long[0], new int[0], new int[0], new int[0]);

  private final long[] starts;
  private final int[] words; // run length | order-unknown bit
  private final int[] slotBase; // index in slots of each run's first slot
  private final int[] slots;

  private TieTable(long[] starts, int[] words, int[] slotBase, int[] slots) {
    this.starts = starts;
    this.words = words;
    this.slotBase = slotBase;
    this.slots = slots;
  }

  /** Reads and checks the table that starts at {@code position} of {@code source}. */
  static TieTable read(RecordSource source, long position, long count, LayoutV2 layout) throws IOException {
    if (layout.runs() == 0) {
      return EMPTY;
    }
    long bytes = layout.tieTableBytes();
    if (bytes > Integer.MAX_VALUE - 8) {
      throw new IndexFormatException(source.name(), "tie table of " + bytes + " bytes is larger than a reader holds");
    }
    ByteBuffer b = ByteBuffer.allocate((int) bytes);
    source.readFully(position, b);
    b.flip();
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate());
    if ((int) crc.getValue() != layout.tieTableCrc()) {
      throw new IndexFormatException(source.name(), "corrupt tie table (checksum mismatch)");
    }
    int runs = (int) layout.runs();
    long[] starts = new long[runs];
    int[] words = new int[runs];
    int[] slotBase = new int[runs];
    long end = 0;
    long slotCount = 0;
    for (int i = 0; i < runs; i++) {
      starts[i] = b.getLong();
      words[i] = b.getInt();
      int length = words[i] & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
      if (b.getInt() != 0 || starts[i] < end || length < 2 || starts[i] + length > count) {
        throw new IndexFormatException(source.name(), "corrupt tie table (run " + i + " at rank " + starts[i]
            + " of " + length + " entries, after a run ending at " + end + ", in a group of " + count + ")");
      }
      end = starts[i] + length;
      slotBase[i] = (int) slotCount;
      slotCount += length;
    }
    if (slotCount != layout.slots()) {
      throw new IndexFormatException(source.name(), "corrupt tie table (runs of " + slotCount + " entries, the"
          + " header says " + layout.slots() + ")");
    }
    int[] slots = new int[(int) slotCount];
    for (int i = 0; i < runs; i++) {
      int length = words[i] & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
      for (int j = 0; j < length; j++) {
        int s = b.getInt();
        if (s < 0 || s >= length) {
          throw new IndexFormatException(source.name(), "corrupt tie table (descending slot " + s + " in the run"
              + " at rank " + starts[i] + " of " + length + " entries)");
        }
        slots[slotBase[i] + j] = s;
      }
    }
    return new TieTable(starts, words, slotBase, slots);
  }

  /** Number of runs. */
  int runs() {
    return starts.length;
  }

  /** The first rank of run {@code i} (runs are in rank order). */
  long start(int i) {
    return starts[i];
  }

  /** Run {@code i}'s length, with {@link GroupFileFormat#RUN_ORDER_UNKNOWN} set when its order is unknown. */
  int word(int i) {
    return words[i];
  }

  /** The descending slot of the entry at position {@code j} of run {@code i}. */
  int slot(int i, int j) {
    return slots[slotBase[i] + j];
  }

  /** The first run that starts at or after {@code rank} ({@link #runs()} when none does). */
  int firstRunFrom(long rank) {
    int i = Arrays.binarySearch(starts, rank);
    return i >= 0 ? i : -i - 1;
  }

  /** The run that holds {@code rank}, or -1. */
  private int runOf(long rank) {
    int i = Arrays.binarySearch(starts, rank);
    if (i < 0) {
      i = -i - 2;
    }
    return i >= 0 && rank < starts[i] + (words[i] & ~GroupFileFormat.RUN_ORDER_UNKNOWN) ? i : -1;
  }

  /** Writes the version-1 tie fields of the entry at {@code rank} (12 bytes) into {@code b} at {@code at}. */
  void putFields(long rank, ByteBuffer b, int at) {
    int i = runOf(rank);
    if (i < 0) {
      b.putInt(at, 0).putInt(at + 4, 1).putInt(at + 8, 0);
    } else {
      int position = (int) (rank - starts[i]);
      b.putInt(at, position).putInt(at + 4, words[i]).putInt(at + 8, slots[slotBase[i] + position]);
    }
  }

  /** The record at {@code rank} with these stored key values. */
  IndexRecord record(long rank, List<io.pagemark.key.KeyValue> keys) {
    int i = runOf(rank);
    if (i < 0) {
      return IndexRecord.unique(keys);
    }
    int position = (int) (rank - starts[i]);
    return new IndexRecord(position, words[i] & ~GroupFileFormat.RUN_ORDER_UNKNOWN,
        (words[i] & GroupFileFormat.RUN_ORDER_UNKNOWN) == 0, slots[slotBase[i] + position], keys);
  }
}
