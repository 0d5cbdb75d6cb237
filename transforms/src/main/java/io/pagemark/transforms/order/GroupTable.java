package io.pagemark.transforms.order;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.Arrays;

/**
 * A bundle's groups by key, for {@link BlockEntriesFn}, which finds the group of every entry it blocks: open addressing
 * over the keys' hashes, with the bytes of S and B keys kept in one array beside them. Finding a group reads a few
 * small arrays, where a {@code HashMap} reads a node, a key object and the key's bytes, each a cache miss apart at
 * thousands of groups (the lookup was half of blocking's CPU at 10,000 groups, docs/build-speed.md, "Fifteenth
 * round"). Keys are equal as {@link KeyValue#equals} says: S and B by type and bytes, N by value ({@code "1.0"} is
 * {@code "1"}), so N keys are compared as objects.
 *
 * @param <V> what is kept per group
 */
final class GroupTable<V> {
  private static final int FIRST_SLOTS = 64;

  /** Per slot: the entry's index + 1, or 0 when the slot is empty; a power of two long, at most half full. */
  private int[] slots = new int[FIRST_SLOTS];
  /** Per entry, in the order they were added: */
  private int[] hashes = new int[FIRST_SLOTS / 2];
  private byte[] types = new byte[FIRST_SLOTS / 2];
  /** where the key's bytes start in {@link #keyBytes} (S and B), or -1 (N) */
  private int[] keyAt = new int[FIRST_SLOTS / 2];
  private int[] keyLength = new int[FIRST_SLOTS / 2];
  private KeyValue[] keys = new KeyValue[FIRST_SLOTS / 2];
  private Object[] values = new Object[FIRST_SLOTS / 2];
  private byte[] keyBytes = new byte[1024];
  private int keyBytesUsed;
  private int size;

  int size() {
    return size;
  }

  /** The value of {@code key}'s group, or null. */
  @SuppressWarnings("unchecked")
  V get(KeyValue key) {
    int h = hash(key);
    int mask = slots.length - 1;
    for (int i = h & mask; ; i = (i + 1) & mask) {
      int e = slots[i] - 1;
      if (e < 0) {
        return null;
      }
      if (hashes[e] == h && same(e, key)) {
        return (V) values[e];
      }
    }
  }

  /** Adds {@code key}'s group, which must not be here yet. */
  void put(KeyValue key, V value) {
    if (2 * (size + 1) > slots.length) {
      grow();
    }
    if (size == hashes.length) {
      int n = 2 * size;
      hashes = Arrays.copyOf(hashes, n);
      types = Arrays.copyOf(types, n);
      keyAt = Arrays.copyOf(keyAt, n);
      keyLength = Arrays.copyOf(keyLength, n);
      keys = Arrays.copyOf(keys, n);
      values = Arrays.copyOf(values, n);
    }
    int e = size++;
    hashes[e] = hash(key);
    types[e] = key.type().code();
    keys[e] = key;
    values[e] = value;
    keyLength[e] = key.length();
    if (key.type() == KeyType.N) {
      keyAt[e] = -1;
    } else {
      if (keyBytesUsed + key.length() > keyBytes.length) {
        keyBytes = Arrays.copyOf(keyBytes, Math.max(2 * keyBytes.length, keyBytesUsed + key.length()));
      }
      key.copyTo(keyBytes, keyBytesUsed);
      keyAt[e] = keyBytesUsed;
      keyBytesUsed += key.length();
    }
    place(e);
  }

  /** The value of the {@code i}-th group added ({@code 0 <= i < size()}). */
  @SuppressWarnings("unchecked")
  V valueAt(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException(i);
    }
    return (V) values[i];
  }

  /** Forgets every group (keeping the room they took). */
  void clear() {
    Arrays.fill(slots, 0);
    Arrays.fill(keys, 0, size, null);
    Arrays.fill(values, 0, size, null);
    keyBytesUsed = 0;
    size = 0;
  }

  private boolean same(int e, KeyValue key) {
    if (types[e] != key.type().code()) {
      return false;
    }
    return keyAt[e] < 0 ? keys[e].equals(key) : key.bytesEqual(keyBytes, keyAt[e], keyLength[e]);
  }

  private void grow() {
    slots = new int[2 * slots.length];
    for (int e = 0; e < size; e++) {
      place(e);
    }
  }

  private void place(int e) {
    int mask = slots.length - 1;
    int i = hashes[e] & mask;
    while (slots[i] != 0) {
      i = (i + 1) & mask;
    }
    slots[i] = e + 1;
  }

  /**
   * {@link KeyValue#hashCode} (equal for equal keys) with its bits spread: the hashes of neighbouring keys' bytes
   * ("SKU-00017", "SKU-00018") are close to each other.
   */
  private static int hash(KeyValue key) {
    int h = key.hashCode() * 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
