package io.pagemark.key;

import java.util.Random;

/**
 * Random valid Unicode strings that stress DynamoDB's string order: NUL and ASCII, Latin-1, combining marks, CJK,
 * the BMP above the surrogates (U+E000..U+FFFF, where UTF-16 and UTF-8 orders disagree with supplementary
 * characters), and supplementary characters (surrogate pairs). Never an unpaired surrogate: DynamoDB accepts only
 * valid UTF-8.
 */
final class RandomUnicode {
  private RandomUnicode() {}

  static int codePoint(Random rnd) {
    switch (rnd.nextInt(8)) {
      case 0:
        return rnd.nextInt(0x80); // ASCII, NUL included
      case 1:
        return 0x80 + rnd.nextInt(0x780); // Latin-1 .. U+07FF (two UTF-8 bytes)
      case 2:
        return 0x300 + rnd.nextInt(0x70); // combining diacritical marks
      case 3:
        return 0x800 + rnd.nextInt(0xD800 - 0x800); // three bytes, below the surrogates
      case 4:
        return 0xE000 + rnd.nextInt(0x10000 - 0xE000); // private use .. U+FFFF
      case 5:
        return 0x10000 + rnd.nextInt(0x110000 - 0x10000); // supplementary
      case 6:
        return new int[] {0, 'a', 'e', 0x301, 0xE9, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF}
            [rnd.nextInt(12)];
      default:
        return 'a' + rnd.nextInt(3);
    }
  }

  static String string(Random rnd, int maxCodePoints) {
    StringBuilder b = new StringBuilder();
    int n = rnd.nextInt(maxCodePoints + 1);
    for (int i = 0; i < n; i++) {
      b.appendCodePoint(codePoint(rnd));
    }
    return b.toString();
  }

  /** A string that shares a prefix with {@code s}, so that comparisons reach deep positions. */
  static String mutate(Random rnd, String s) {
    int[] cps = s.codePoints().toArray();
    int keep = cps.length == 0 ? 0 : rnd.nextInt(cps.length + 1);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < keep; i++) {
      b.appendCodePoint(cps[i]);
    }
    int extra = rnd.nextInt(3);
    for (int i = 0; i < extra; i++) {
      b.appendCodePoint(codePoint(rnd));
    }
    return b.toString();
  }
}
