package io.pagemark.format;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.RandomAccess;

/**
 * A group's records in rank order, held as the bytes of their version-1 layout (docs/file-format.md): {@code size()}
 * records of {@link #width()} bytes each, zero-padded, whose key values have the types {@link #types()}. A list of
 * {@link IndexRecord}s like any other (a record is decoded when asked for), but {@link GroupFileWriter#write} writes
 * it from its bytes, without a record object per entry: a build encodes the records of a part straight from the bytes
 * it ordered ({@link Builder}), and the file it writes is the one it would write from the same records as objects.
 * Immutable.
 */
public final class EncodedRecords extends AbstractList<IndexRecord> implements RandomAccess {
  private final List<KeyType> types;
  private final int width;
  private final int count;
  private final byte[] bytes;

  private EncodedRecords(List<KeyType> types, int width, int count, byte[] bytes) {
    this.types = types;
    this.width = width;
    this.count = count;
    this.bytes = bytes;
  }

  /** The width of every record: the widest record's ({@link GroupFileWriter#widthFor}). */
  public int width() {
    return width;
  }

  /** The types of the key values of every record, in order. */
  public List<KeyType> types() {
    return types;
  }

  @Override
  public int size() {
    return count;
  }

  /** The record at {@code rank}'s position in its run of equal sort keys, without decoding it. */
  public int tiePosition(int rank) {
    return V1Records.getInt(bytes, at(rank));
  }

  /** The length of the run of equal sort keys of the record at {@code rank}, without decoding it. */
  public int runLength(int rank) {
    return V1Records.getInt(bytes, at(rank) + 4) & ~GroupFileFormat.RUN_ORDER_UNKNOWN;
  }

  /** Whether the order of the run of the record at {@code rank} is DynamoDB's own, without decoding it. */
  public boolean runOrderKnown(int rank) {
    return (V1Records.getInt(bytes, at(rank) + 4) & GroupFileFormat.RUN_ORDER_UNKNOWN) == 0;
  }

  @Override
  public IndexRecord get(int rank) {
    int p = at(rank);
    int tie = V1Records.getInt(bytes, p);
    int runWord = V1Records.getInt(bytes, p + 4);
    int slot = V1Records.getInt(bytes, p + 8);
    p += GroupFileFormat.RECORD_PREFIX_BYTES;
    List<KeyValue> keys = new ArrayList<>(types.size());
    for (KeyType type : types) {
      int length = ((bytes[p] & 0xFF) << 8) | (bytes[p + 1] & 0xFF);
      keys.add(KeyValue.of(type, bytes, p + 2, p + 2 + length));
      p += 2 + length;
    }
    return new IndexRecord(tie, runWord & ~GroupFileFormat.RUN_ORDER_UNKNOWN,
        (runWord & GroupFileFormat.RUN_ORDER_UNKNOWN) == 0, slot, keys);
  }

  /** Whether these records can be written as they are under {@code header}: same key types, same record width. */
  boolean fits(GroupHeader header) {
    if (header.recordWidth() != width || header.attributes().size() != types.size()) {
      return false;
    }
    for (int i = 0; i < types.size(); i++) {
      if (header.attributes().get(i).type() != types.get(i)) {
        return false;
      }
    }
    return true;
  }

  /** The records' bytes: record {@code rank} at {@code rank * width()}. Never modify them. */
  byte[] bytes() {
    return bytes;
  }

  private int at(int rank) {
    if (rank < 0 || rank >= count) {
      throw new IndexOutOfBoundsException("rank " + rank + " of " + count + " records");
    }
    return rank * width;
  }

  /**
   * Encodes {@code count} records of a given width and key types, at their ranks in any order: each rank once,
   * either from a record object ({@link #put}) or from its tie fields ({@link #start}) then its keys' stored bytes
   * one after another ({@link #key}).
   */
  public static final class Builder {
    private final List<KeyType> types;
    private final int width;
    private final int count;
    private final byte[] bytes;
    private final BitSet written;

    /**
     * @throws IllegalArgumentException if the width cannot hold a record of these types (any width from the tie
     *     fields' up holds no records), or the records would
     *     take more than an array can hold
     */
    public Builder(List<KeyType> types, int width, int count) {
      this.types = List.copyOf(types);
      // no records need no room for keys (a header of no records is as wide as the tie fields)
      int least = GroupFileFormat.RECORD_PREFIX_BYTES + (count == 0 ? 0 : 2 * this.types.size());
      if (width < least || count < 0) {
        throw new IllegalArgumentException(count + " records of width " + width + " (at least " + least + ")");
      }
      if ((long) width * count > Integer.MAX_VALUE - 16) {
        throw new IllegalArgumentException(count + " records of " + width + " bytes do not fit in one array");
      }
      this.width = width;
      this.count = count;
      this.bytes = new byte[width * count];
      this.written = new BitSet(count);
    }

    /**
     * Writes the tie fields of the record at {@code rank}; returns where its first key goes (for {@link #key}).
     *
     * @throws IllegalArgumentException if the rank is out of range or written already, or the fields are not those
     *     of a record ({@link IndexRecord})
     */
    public int start(int rank, int tiePosition, int runLength, boolean runOrderKnown, int descendingSlot) {
      if (rank < 0 || rank >= count || written.get(rank)) {
        throw new IllegalArgumentException("rank " + rank + " is outside " + count + " records or written already");
      }
      if (runLength < 1 || tiePosition < 0 || tiePosition >= runLength || descendingSlot < 0
          || descendingSlot >= runLength) {
        throw new IllegalArgumentException("tie position " + tiePosition + ", descending slot " + descendingSlot
            + " in a run of " + runLength);
      }
      written.set(rank);
      int p = V1Records.putInt(bytes, rank * width, tiePosition);
      p = V1Records.putInt(bytes, p, runLength | (runOrderKnown ? 0 : GroupFileFormat.RUN_ORDER_UNKNOWN));
      return V1Records.putInt(bytes, p, descendingSlot);
    }

    /**
     * Writes the next key value of the record at {@code rank} at {@code p} (from {@link #start} or the previous
     * {@code key}): {@code length} stored bytes of {@code src} from {@code from}. The caller writes every key of the
     * builder's types, in order; returns where the next one goes.
     *
     * @throws IllegalArgumentException if the value is longer than the format stores or the record's width holds
     */
    public int key(int rank, int p, byte[] src, int from, int length) {
      p = reserve(rank, p, length);
      System.arraycopy(src, from, bytes, p, length);
      return p + length;
    }

    /** Checks that a value of {@code length} bytes fits at {@code p} and writes its length; returns where it goes. */
    private int reserve(int rank, int p, int length) {
      if (length > GroupFileFormat.MAX_VALUE_BYTES) {
        throw new IllegalArgumentException(
            "a key value holds " + length + " bytes; the format stores at most " + GroupFileFormat.MAX_VALUE_BYTES);
      }
      if (p + 2 + length > (rank + 1) * width || p < rank * width + GroupFileFormat.RECORD_PREFIX_BYTES) {
        throw new IllegalArgumentException("a key value of " + length + " bytes at " + (p - rank * width)
            + " does not fit a record of width " + width);
      }
      bytes[p] = (byte) (length >>> 8);
      bytes[p + 1] = (byte) length;
      return p + 2;
    }

    /**
     * Writes {@code r} at {@code rank}.
     *
     * @throws IllegalArgumentException if its keys are not of the builder's types, or it does not fit the width
     */
    public void put(int rank, IndexRecord r) {
      List<KeyValue> keys = r.keys();
      if (keys.size() != types.size()) {
        throw new IllegalArgumentException("a record of " + keys.size() + " key values among records of "
            + types.size());
      }
      int p = start(rank, r.tiePosition(), r.runLength(), r.runOrderKnown(), r.descendingSlot());
      for (int i = 0; i < keys.size(); i++) {
        KeyValue k = keys.get(i);
        if (k.type() != types.get(i)) {
          throw new IllegalArgumentException("key value " + i + " is " + k.type() + " among records where it is "
              + types.get(i));
        }
        p = reserve(rank, p, k.length());
        k.copyTo(bytes, p);
        p += k.length();
      }
    }

    /**
     * The records.
     *
     * @throws IllegalStateException if a rank was not written
     */
    public EncodedRecords build() {
      int missing = written.nextClearBit(0);
      if (missing < count) {
        throw new IllegalStateException("the record at rank " + missing + " of " + count + " was not written");
      }
      return new EncodedRecords(types, width, count, bytes);
    }
  }
}
