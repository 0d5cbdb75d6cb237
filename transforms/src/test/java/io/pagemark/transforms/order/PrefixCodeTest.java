package io.pagemark.transforms.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link PrefixCode} must never contradict the bytes: for every pair of keys of a part, a smaller code means a
 * smaller key and equal keys have equal codes, whatever the number of bits (a cut last field included).
 */
class PrefixCodeTest {
  @Test
  void aSmallerCodeIsASmallerKey() {
    Random rnd = new Random(4242);
    for (int round = 0; round < 300; round++) {
      int style = round % 6;
      List<byte[]> keys = new ArrayList<>();
      int n = 1 + rnd.nextInt(80);
      for (int i = 0; i < n; i++) {
        keys.add(key(OrderPartFnTest.trickyKey(rnd, style)));
      }
      int bits = new int[] {1, 3, 7, 17, 45, 63}[round % 6];
      PrefixCode.Ranges ranges = new PrefixCode.Ranges();
      keys.forEach(k -> ranges.add(k, 0, 1, k.length));
      PrefixCode code = ranges.code(bits);
      assertThat(code.bits(), lessThanOrEqualTo(bits));
      long[] codes = keys.stream().mapToLong(k -> code.of(k, 0, 1, k.length)).toArray();
      for (int i = 0; i < n; i++) {
        assertThat(codes[i] >>> bits, equalTo(0L));
        for (int j = 0; j < n; j++) {
          int c = Arrays.compareUnsigned(keys.get(i), keys.get(j));
          String what = "round " + round + ": " + Arrays.toString(keys.get(i)) + " vs " + Arrays.toString(keys.get(j));
          if (codes[i] < codes[j]) {
            assertThat(what, c, lessThan(0));
          } else if (c == 0) {
            assertThat(what, codes[i], equalTo(codes[j]));
          }
        }
      }
    }
  }

  @Test
  void distinctTimestampsToTheSecondGetDistinctCodesIn45Bits() {
    // positions that never vary (the century, "-", "T", ":", "Z") take no bits, the others only what their digits
    // need: a part of 200,000 entries (18 bits of index) sorts seconds-resolution timestamps by codes alone
    Random rnd = new Random(7);
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      long second = 1_704_067_200L + Math.floorMod(rnd.nextLong(), 91_000_000L);
      keys.add(key(KeyValue.ofString(java.time.Instant.ofEpochSecond(second).toString())));
    }
    PrefixCode.Ranges ranges = new PrefixCode.Ranges();
    keys.forEach(k -> ranges.add(k, 0, 1, k.length));
    PrefixCode code = ranges.code(45);
    for (byte[] a : keys) {
      for (byte[] b : keys) {
        assertThat(Long.compare(code.of(a, 0, 1, a.length), code.of(b, 0, 1, b.length)),
            equalTo(Integer.signum(Arrays.compareUnsigned(a, b))));
      }
    }
  }

  /** The key as PrefixCode sees it: the type code, then the order-preserving bytes. */
  private static byte[] key(KeyValue k) {
    byte[] s = k.sortableBytes();
    byte[] b = new byte[1 + s.length];
    b[0] = k.type().code();
    System.arraycopy(s, 0, b, 1, s.length);
    return b;
  }
}
