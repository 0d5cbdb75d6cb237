package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link PartSort#sortByBitsAbove} must put a part's keys (a code above an index that numbers them) in exactly the
 * order {@link Arrays#sort(long[])} gives, for every size and spread of codes: equal codes keep their index order.
 */
class PartSortTest {
  @Test
  void radixOrderIsArraysSortOrder() {
    Random rnd = new Random(20261129);
    int[] sizes = {1, 2, PartSort.RADIX_MIN - 1, PartSort.RADIX_MIN, PartSort.RADIX_MIN + 1, 800, 5_000, 70_000};
    for (int n : sizes) {
      int low = Math.max(1, 32 - Integer.numberOfLeadingZeros(n - 1));
      for (int codeBits : new int[] {0, 1, 7, 8, 9, 20, 42, 63 - low}) {
        for (int spread : new int[] {0, 1, 2}) {
          long[] keys = new long[n];
          for (int i = 0; i < n; i++) {
            keys[i] = code(rnd, codeBits, spread) << low | i;
          }
          long[] expected = keys.clone();
          Arrays.sort(expected);
          long[] sorted = PartSort.sortByBitsAbove(keys.clone(), low, low + codeBits);
          assertThat("n " + n + ", code bits " + codeBits + ", spread " + spread, sorted, equalTo(expected));
        }
      }
    }
  }

  /**
   * A code of at most {@code bits} bits: any value (spread 0), few distinct values, so that runs of equal codes are
   * long (1), or values that differ only in their top byte, so that every lower byte's pass is skipped (2).
   */
  private static long code(Random rnd, int bits, int spread) {
    if (bits == 0) {
      return 0;
    }
    long mask = bits == 64 ? -1L : (1L << bits) - 1;
    switch (spread) {
      case 0:
        return rnd.nextLong() & mask;
      case 1:
        return (rnd.nextInt(5) * 0x9E3779B97F4A7C15L) & mask;
      default:
        int top = Math.max(0, bits - 8);
        return ((long) rnd.nextInt(1 << Math.min(8, bits)) << top | 0x5A5A5A5A5A5A5A5AL & ((1L << top) - 1)) & mask;
    }
  }
}
