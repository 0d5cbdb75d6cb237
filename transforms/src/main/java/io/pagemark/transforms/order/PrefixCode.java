package io.pagemark.transforms.order;

import java.util.Arrays;

/**
 * An order-preserving summary of a part's sort keys in one {@code long}: if the codes of two keys differ, they order
 * the keys as their bytes do; if they are equal, the keys may still differ and only their bytes can tell. A key here
 * is its type code followed by its order-preserving bytes, compared as unsigned bytes (which is
 * {@code KeyValue.compareTo}).
 *
 * <p>A code is learned from the keys of one part ({@link Ranges}): byte positions where every key long enough to
 * have one holds the same byte are left out (common prefixes, the "-" and ":" of timestamps), and each other position
 * takes only the bits its range of values needs, value {@code v} as {@code v - min + 1} and a key too short to have
 * the position as 0. The fields, in position order, fill the code from its high bits; the last one may be cut to
 * its high bits. Leaving out a constant position cannot change the order of two keys (they first differ elsewhere,
 * or one is a prefix of the other), and a shorter key codes below any byte at a position it lacks, so a smaller code
 * means a smaller key. Only the first {@link #SCAN} positions are looked at.
 */
final class PrefixCode {
  /** How many leading positions of a key (its type included) a code may use. */
  static final int SCAN = 64;

  private final int[] positions;
  private final int[] mins;
  private final int[] widths;
  private final int[] cuts;

  private PrefixCode(int[] positions, int[] mins, int[] widths, int[] cuts) {
    this.positions = positions;
    this.mins = mins;
    this.widths = widths;
    this.cuts = cuts;
  }

  /** The code of the key whose type code is {@code b[type]} and whose bytes are {@code b[from..to)}. */
  long of(byte[] b, int type, int from, int to) {
    int length = 1 + to - from;
    long code = 0;
    for (int k = 0; k < positions.length; k++) {
      int p = positions[k];
      int v = p >= length ? 0 : ((p == 0 ? b[type] : b[from + p - 1]) & 0xFF) - mins[k] + 1;
      code = code << widths[k] | v >>> cuts[k];
    }
    return code;
  }

  /** How many bits the codes use. */
  int bits() {
    return Arrays.stream(widths).sum();
  }

  /** The range of byte values at each of the first {@link #SCAN} positions of the keys seen. */
  static final class Ranges {
    private final int[] min = new int[SCAN];
    private final int[] max = new int[SCAN];

    Ranges() {
      Arrays.fill(min, 0xFF);
      Arrays.fill(max, -1);
    }

    /** Adds the key whose type code is {@code b[type]} and whose bytes are {@code b[from..to)}. */
    void add(byte[] b, int type, int from, int to) {
      int t = b[type] & 0xFF;
      min[0] = Math.min(min[0], t);
      max[0] = Math.max(max[0], t);
      int n = Math.min(SCAN - 1, to - from);
      for (int p = 0; p < n; p++) {
        int v = b[from + p] & 0xFF;
        if (v < min[p + 1]) {
          min[p + 1] = v;
        }
        if (v > max[p + 1]) {
          max[p + 1] = v;
        }
      }
    }

    /** A code of at most {@code bits} bits (1 to 63) for the keys added. */
    PrefixCode code(int bits) {
      int[] positions = new int[SCAN];
      int[] mins = new int[SCAN];
      int[] widths = new int[SCAN];
      int[] cuts = new int[SCAN];
      int fields = 0;
      int left = bits;
      for (int p = 0; p < SCAN && left > 0 && max[p] >= 0; p++) {
        int values = max[p] - min[p] + 1;
        if (values == 1) {
          continue; // the same byte in every key that has this position
        }
        int width = 32 - Integer.numberOfLeadingZeros(values); // codes 0 (too short) to values
        positions[fields] = p;
        mins[fields] = min[p];
        widths[fields] = Math.min(width, left);
        cuts[fields] = width - widths[fields];
        left -= widths[fields];
        fields++;
      }
      return new PrefixCode(Arrays.copyOf(positions, fields), Arrays.copyOf(mins, fields),
          Arrays.copyOf(widths, fields), Arrays.copyOf(cuts, fields));
    }
  }
}
