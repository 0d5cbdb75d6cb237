package io.pagemark.transforms.order;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The entries of one part, in their blocks, sorted by {@link io.pagemark.dynamo.IndexEntry#ORDER} without decoding
 * them: the sort key's type and order-preserving bytes, then the other keys' bytes, unsigned; entries equal in all
 * keys keep the order in which the blocks gave them. The order is exactly the one that comparing the bytes of every
 * pair gives; {@link PrefixCode} only decides most comparisons with one {@code long}.
 */
final class PartSort {
  private final List<EntryBlock> blocks = new ArrayList<>();
  private int size;
  // per entry, in the order the blocks gave them: block, entry start, sort key start, sortable bytes [from, to)
  private int[] blockOf;
  private int[] at;
  private int[] sortKey;
  private int[] sortFrom;
  private int[] sortTo;
  private long[] codes; // per entry: its PrefixCode
  private int[] sorted; // entries in order
  private int[] ranks; // per entry: its rank in order

  /** Reads and sorts the entries of {@code part}'s blocks (at least one entry). */
  PartSort(Iterable<EntryBlock> part) {
    int n = 0;
    for (EntryBlock block : part) {
      blocks.add(block);
      n += block.count();
    }
    if (n == 0) {
      throw new IllegalArgumentException("a part needs at least one entry");
    }
    blockOf = new int[n];
    at = new int[n];
    sortKey = new int[n];
    sortFrom = new int[n];
    sortTo = new int[n];
    // the ranges of the sort keys' bytes are learned while the bytes are at hand (one pass over the entries)
    PrefixCode.Ranges ranges = new PrefixCode.Ranges();
    for (int k = 0; k < blocks.size(); k++) {
      byte[] b = blocks.get(k).bytes();
      EntryBlock block = blocks.get(k);
      for (int p = block.firstEntry(), i = 0; i < block.count(); i++, p = EntryBlock.next(b, p)) {
        int sk = EntryBlock.skipVarInt(b, EntryBlock.keysOf(b, p));
        int from = EntryBlock.sortableFrom(b, sk);
        int to = from + EntryBlock.sortableLength(b, sk);
        blockOf[size] = k;
        at[size] = p;
        sortKey[size] = sk;
        sortFrom[size] = from;
        sortTo[size] = to;
        ranges.add(b, sk, from, to);
        size++;
      }
    }
    sort(ranges);
  }

  int size() {
    return size;
  }

  /** The entry (numbered in the order the blocks gave them) at {@code rank} in order. */
  int entry(int rank) {
    return sorted[rank];
  }

  /** The rank in order of {@code entry}. */
  int rank(int entry) {
    return ranks[entry];
  }

  /** The block that holds {@code entry}. */
  EntryBlock block(int entry) {
    return blocks.get(blockOf[entry]);
  }

  /** Where {@code entry} starts in its {@link #block}. */
  int at(int entry) {
    return at[entry];
  }

  /** Whether entries {@code i} and {@code j} have equal sort keys (type and value). */
  boolean sameSortKey(int i, int j) {
    // the code is a function of the sort key alone: different codes, different sort keys
    return codes[i] == codes[j] && compareSortKey(i, j) == 0;
  }

  private void sort(PrefixCode.Ranges ranges) {
    // code and entry index share one long, so that sorting primitives (no objects, no comparator) does most of it
    int shift = indexBits();
    PrefixCode code = ranges.code(63 - shift);
    codes = new long[size];
    long[] keyed = new long[size];
    for (int i = 0; i < size; i++) {
      codes[i] = code.of(blocks.get(blockOf[i]).bytes(), sortKey[i], sortFrom[i], sortTo[i]);
      keyed[i] = codes[i] << shift | i; // the index breaks ties: equal entries stay in block order
    }
    keyed = sortByBitsAbove(keyed, shift, shift + code.bits());
    sorted = new int[size];
    for (int r = 0; r < size; r++) {
      sorted[r] = (int) (keyed[r] & ((1L << shift) - 1));
    }
    // runs of equal codes: order them by their bytes (in block order already, so a stable sort keeps that)
    for (int r = 0; r < size; ) {
      int end = r + 1;
      while (end < size && keyed[end] >>> shift == keyed[r] >>> shift) {
        end++;
      }
      if (end - r > 1) {
        sortRun(r, end);
      }
      r = end;
    }
    ranks = new int[size];
    for (int r = 0; r < size; r++) {
      ranks[sorted[r]] = r;
    }
  }

  /** Below this many entries {@link #sortByBitsAbove} leaves the sort to {@link Arrays#sort(long[])}. */
  static final int RADIX_MIN = 64;

  /**
   * {@code keys} (non-negative, below 2<sup>{@code top}</sup>, their bits under {@code low} ascending from one key to
   * the next, as an index numbering them is) in ascending order: sorted by their bits from {@code low} up, a byte at a
   * time, least significant first, each pass stable (a radix sort: no comparisons, a pass over the keys per byte that
   * is not the same in every key), so that keys equal in those bits keep their order. Returns {@code keys} or a new
   * array. The result is {@link Arrays#sort(long[])}'s: the bits under {@code low} already order equal ones.
   */
  static long[] sortByBitsAbove(long[] keys, int low, int top) {
    int n = keys.length;
    if (n < RADIX_MIN || top <= low) {
      Arrays.sort(keys);
      return keys;
    }
    int passes = (top - low + 7) / 8;
    int[] counts = new int[passes << 8];
    for (long k : keys) {
      long x = k >>> low;
      for (int d = 0; d < passes; d++, x >>>= 8) {
        counts[d << 8 | (int) (x & 0xFF)]++;
      }
    }
    long[] from = keys;
    long[] to = new long[n];
    for (int d = 0; d < passes; d++) {
      int shift = low + 8 * d;
      int base = d << 8;
      if (counts[base | (int) (from[0] >>> shift & 0xFF)] == n) {
        continue; // every key has this byte: the pass would change nothing
      }
      for (int v = 0, sum = 0; v < 256; v++) {
        int c = counts[base | v];
        counts[base | v] = sum;
        sum += c;
      }
      for (long k : from) {
        to[counts[base | (int) (k >>> shift & 0xFF)]++] = k;
      }
      long[] t = from;
      from = to;
      to = t;
    }
    return from;
  }

  private int indexBits() {
    return Math.max(1, 32 - Integer.numberOfLeadingZeros(size - 1));
  }

  private void sortRun(int from, int to) {
    if (to - from <= 16) {
      for (int r = from + 1; r < to; r++) {
        int e = sorted[r];
        int s = r - 1;
        while (s >= from && compare(sorted[s], e) > 0) {
          sorted[s + 1] = sorted[s];
          s--;
        }
        sorted[s + 1] = e;
      }
      return;
    }
    Integer[] run = new Integer[to - from];
    for (int r = from; r < to; r++) {
      run[r - from] = sorted[r];
    }
    Arrays.sort(run, this::compare); // stable
    for (int r = from; r < to; r++) {
      sorted[r] = run[r - from];
    }
  }

  private int compareSortKey(int i, int j) {
    byte[] a = blocks.get(blockOf[i]).bytes();
    byte[] b = blocks.get(blockOf[j]).bytes();
    if (a[sortKey[i]] != b[sortKey[j]]) {
      return Integer.compare(a[sortKey[i]] & 0xFF, b[sortKey[j]] & 0xFF); // types, as KeyValue.compareTo
    }
    return Arrays.compareUnsigned(a, sortFrom[i], sortTo[i], b, sortFrom[j], sortTo[j]);
  }

  /** {@code IndexEntry.ORDER}: the sort key, then the other keys' order-preserving bytes. */
  private int compare(int i, int j) {
    int c = compareSortKey(i, j);
    if (c != 0) {
      return c;
    }
    byte[] a = blocks.get(blockOf[i]).bytes();
    byte[] b = blocks.get(blockOf[j]).bytes();
    int n = EntryBlock.readVarInt(a, EntryBlock.keysOf(a, at[i]));
    int p = EntryBlock.skipKey(a, sortKey[i]);
    int q = EntryBlock.skipKey(b, sortKey[j]);
    for (int k = 1; k < n; k++) {
      int pf = EntryBlock.sortableFrom(a, p);
      int qf = EntryBlock.sortableFrom(b, q);
      c = Arrays.compareUnsigned(a, pf, pf + EntryBlock.sortableLength(a, p),
          b, qf, qf + EntryBlock.sortableLength(b, q));
      if (c != 0) {
        return c;
      }
      p = EntryBlock.skipKey(a, p);
      q = EntryBlock.skipKey(b, q);
    }
    return 0;
  }
}
