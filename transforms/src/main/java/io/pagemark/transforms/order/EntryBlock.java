package io.pagemark.transforms.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.util.VarInt;

/**
 * Entries of one group as bytes, encoded once where they are read ({@link BlockEntriesFn}) and decoded only where a
 * part is written ({@link OrderPartFn}): the exchanges in between move, split and sort byte ranges. Each key carries
 * its order-preserving bytes ({@link KeyValue#sortableBytes()}), so ordering compares unsigned bytes and never parses
 * a number.
 *
 * <pre>
 * block   := group entry*                     (count kept beside the bytes)
 * group   := type:u8 length:varint stored     (the first entry's group key; no sortable bytes)
 * entry   := length:varint flag:u8 [group] keyCount:varint key*
 *            flag 0: the entry's group key is stored exactly as the block's; 1: its own follows
 * key     := type:u8 length:varint stored [length:varint sortable]   (sortable for N only: S and B sort as stored)
 * </pre>
 *
 * <p>An entry is self-contained but for its group flag, so a run of entries moves to another block of the same group
 * key as one copy. Immutable once written; the bytes are shared, never copied, between steps of one worker.
 */
final class EntryBlock {
  static final int SAME_GROUP = 0;
  static final int OWN_GROUP = 1;

  private final byte[] bytes;
  private final int length;
  private final int count;
  private KeyValue group; // decoded once: each entry of a run of ties becomes an IndexEntry with it

  EntryBlock(byte[] bytes, int length, int count) {
    this.bytes = bytes;
    this.length = length;
    this.count = count;
  }

  /** The encoded bytes; only the first {@link #length()} are the block's. Never modify them. */
  byte[] bytes() {
    return bytes;
  }

  int length() {
    return length;
  }

  /** How many entries the block holds. */
  int count() {
    return count;
  }

  /** Where the first entry starts: just past the block's group key. */
  int firstEntry() {
    return skipGroupKey(bytes, 0);
  }

  /** The block's group key, as stored. */
  KeyValue group() {
    KeyValue g = group;
    if (g == null) { // a KeyValue is immutable: threads that race here decode equal values
      g = readKey(bytes, 0);
      group = g;
    }
    return g;
  }

  /** A block of these entries, grouped under the first one's group key (tests). */
  static EntryBlock of(List<IndexEntry> entries) {
    Writer w = new Writer(entries.get(0).group(), 64);
    entries.forEach(w::add);
    return w.finish();
  }

  /** Decodes every entry (for tests and for code that needs objects). */
  List<IndexEntry> entries() {
    List<IndexEntry> out = new ArrayList<>(count);
    for (int at = firstEntry(), i = 0; i < count; i++) {
      out.add(entry(at));
      at = next(bytes, at);
    }
    return out;
  }

  /** Decodes the entry that starts at {@code at}. */
  IndexEntry entry(int at) {
    int p = skipVarInt(bytes, at);
    KeyValue group = bytes[p] == OWN_GROUP ? readKey(bytes, p + 1) : group();
    p = bytes[p] == OWN_GROUP ? skipGroupKey(bytes, p + 1) : p + 1;
    return new IndexEntry(group, keys(bytes, p));
  }

  /** The group key of the entry at {@code at}, as stored. */
  KeyValue groupOf(int at) {
    int p = skipVarInt(bytes, at);
    return bytes[p] == OWN_GROUP ? readKey(bytes, p + 1) : group();
  }

  /** Where the entry after the one at {@code at} starts. */
  static int next(byte[] b, int at) {
    int length = readVarInt(b, at);
    return skipVarInt(b, at) + length;
  }

  /** Where the key count of the entry at {@code at} is. */
  static int keysOf(byte[] b, int at) {
    int p = skipVarInt(b, at);
    return b[p] == OWN_GROUP ? skipGroupKey(b, p + 1) : p + 1;
  }

  /** The stored key values that start with the key count at {@code p}. */
  static List<KeyValue> keys(byte[] b, int p) {
    int n = readVarInt(b, p);
    p = skipVarInt(b, p);
    if (n == 2) { // the usual entry (sort key, table key): List.of(a, b) holds them with no array
      KeyValue first = readKey(b, p);
      return List.of(first, readKey(b, skipKey(b, p)));
    }
    KeyValue[] keys = new KeyValue[n];
    for (int i = 0; i < n; i++) {
      keys[i] = readKey(b, p);
      p = skipKey(b, p);
    }
    return List.of(keys);
  }

  /** Reads the key that starts at {@code p} (type, stored bytes). */
  static KeyValue readKey(byte[] b, int p) {
    KeyType type = KeyType.fromCode(b[p]);
    int n = readVarInt(b, p + 1);
    int from = skipVarInt(b, p + 1);
    return KeyValue.of(type, b, from, from + n);
  }

  /** Where the group key that starts at {@code p} ends (group keys carry no sortable bytes). */
  static int skipGroupKey(byte[] b, int p) {
    int n = readVarInt(b, p + 1);
    return skipVarInt(b, p + 1) + n;
  }

  /** Where the key after the one at {@code p} starts. */
  static int skipKey(byte[] b, int p) {
    boolean number = b[p] == KeyType.N.code();
    int n = readVarInt(b, p + 1);
    p = skipVarInt(b, p + 1) + n;
    if (number) {
      n = readVarInt(b, p);
      p = skipVarInt(b, p) + n;
    }
    return p;
  }

  /**
   * Where the sortable bytes of the key at {@code p} start; {@link #sortableLength} says how many there are. For S
   * and B they are the stored bytes.
   */
  static int sortableFrom(byte[] b, int p) {
    int q = skipVarInt(b, p + 1);
    if (b[p] != KeyType.N.code()) {
      return q;
    }
    q += readVarInt(b, p + 1);
    return skipVarInt(b, q);
  }

  static int sortableLength(byte[] b, int p) {
    int q = skipVarInt(b, p + 1);
    if (b[p] != KeyType.N.code()) {
      return readVarInt(b, p + 1);
    }
    return readVarInt(b, q + readVarInt(b, p + 1));
  }

  static int readVarInt(byte[] b, int p) {
    int v = 0;
    for (int shift = 0; ; shift += 7) {
      int x = b[p++];
      v |= (x & 0x7F) << shift;
      if (x >= 0) {
        return v;
      }
    }
  }

  static int skipVarInt(byte[] b, int p) {
    while (b[p++] < 0) {
      // continuation bit set
    }
    return p;
  }

  /** Writes a block: a group key, then entries, either encoded from objects or copied from another block. */
  static final class Writer {
    /** {@link #numbersSortable} of keys without a number, by how many keys (an entry has at most four). */
    private static final byte[][][] NO_NUMBERS = {new byte[0][], new byte[1][], new byte[2][], new byte[3][],
        new byte[4][]};

    private byte[] buf;
    private int size;
    private int count;
    private final byte[] groupStored;
    private final KeyType groupType;

    /** A block whose entries' group key is {@code group} (as good as always: their own otherwise). */
    Writer(KeyValue group, int expectedBytes) {
      this.buf = new byte[Math.max(64, expectedBytes)];
      this.groupType = group.type();
      this.groupStored = group.bytes();
      key(group, null);
    }

    /** A block with the same group key as {@code source}. */
    Writer(EntryBlock source, int expectedBytes) {
      this.buf = new byte[Math.max(64, expectedBytes)];
      int end = source.firstEntry();
      this.groupType = KeyType.fromCode(source.bytes[0]);
      int from = skipVarInt(source.bytes, 1);
      this.groupStored = Arrays.copyOfRange(source.bytes, from, end);
      put(source.bytes, 0, end);
    }

    int count() {
      return count;
    }

    int size() {
      return size;
    }

    /** Appends an entry. */
    void add(IndexEntry e) {
      List<KeyValue> keys = e.keys();
      add(e.group(), keys, numbersSortable(keys));
    }

    /**
     * The order-preserving bytes of each N key of {@code keys}, null for the others (they sort as stored). Read only:
     * keys without a number (most tables') share one array of nulls per count of keys rather than one per entry.
     */
    static byte[][] numbersSortable(List<KeyValue> keys) {
      byte[][] sortable = null;
      for (int i = 0; i < keys.size(); i++) {
        if (keys.get(i).type() == KeyType.N) {
          if (sortable == null) {
            sortable = new byte[keys.size()][];
          }
          sortable[i] = keys.get(i).sortableBytes();
        }
      }
      return sortable != null ? sortable
          : keys.size() < NO_NUMBERS.length ? NO_NUMBERS[keys.size()] : new byte[keys.size()][];
    }

    /**
     * Appends an entry; {@code numbersSortable} holds the order-preserving bytes of its N keys (null for S and B, which
     * sort as stored: see {@link #numbersSortable}), computed once by the caller. No key's bytes are copied but into
     * the block.
     */
    void add(KeyValue group, List<KeyValue> keys, byte[][] numbersSortable) {
      int body = 1 + VarInt.getLength(keys.size());
      boolean own = group.type() != groupType || group.length() != groupStored.length
          || !group.bytesEqual(groupStored);
      if (own) {
        body += 1 + VarInt.getLength(group.length()) + group.length();
      }
      for (int i = 0; i < keys.size(); i++) {
        int length = keys.get(i).length();
        body += 1 + VarInt.getLength(length) + length;
        if (numbersSortable[i] != null) {
          body += VarInt.getLength(numbersSortable[i].length) + numbersSortable[i].length;
        }
      }
      ensure(VarInt.getLength(body) + body);
      varInt(body);
      buf[size++] = (byte) (own ? OWN_GROUP : SAME_GROUP);
      if (own) {
        key(group, null);
      }
      varInt(keys.size());
      for (int i = 0; i < keys.size(); i++) {
        key(keys.get(i), numbersSortable[i]); // null but for N keys
      }
      count++;
    }

    /** Appends, unchanged, the entry of {@code source} that starts at {@code at} (a block of the same group key). */
    void copy(byte[] source, int at) {
      put(source, at, next(source, at) - at);
      count++;
    }

    EntryBlock finish() {
      return new EntryBlock(buf, size, count);
    }

    private void key(KeyValue k, byte[] sortable) {
      int length = k.length();
      ensure(1 + 5 + length + (sortable == null ? 0 : 5 + sortable.length));
      buf[size++] = k.type().code();
      varInt(length);
      k.copyTo(buf, size);
      size += length;
      if (sortable != null) {
        varInt(sortable.length);
        System.arraycopy(sortable, 0, buf, size, sortable.length);
        size += sortable.length;
      }
    }

    private void put(byte[] b, int from, int n) {
      ensure(n);
      System.arraycopy(b, from, buf, size, n);
      size += n;
    }

    private void varInt(int v) {
      ensure(5);
      while ((v & ~0x7F) != 0) {
        buf[size++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[size++] = (byte) v;
    }

    private void ensure(int n) {
      if (size + n > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
      }
    }
  }
}
