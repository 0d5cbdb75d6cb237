package io.pagemark.key;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Property tests of DynamoDB's order of strings (unsigned UTF-8 bytes) and binaries (unsigned bytes). The oracle for
 * strings is code point order, which UTF-8 preserves; it shares no code with {@link KeyValue}.
 */
class StringAndBinaryOrderTest {
  static final long SEED = 20240601L;
  static final int CASES = 20_000;

  @Test
  void stringOrderIsCodePointOrderAndUnsignedUtf8Order() {
    Random rnd = new Random(SEED);
    for (int i = 0; i < CASES; i++) {
      String a = RandomUnicode.string(rnd, 12);
      String b = rnd.nextInt(3) == 0 ? RandomUnicode.string(rnd, 12) : RandomUnicode.mutate(rnd, a);
      int expected = Integer.signum(Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray()));
      int byUtf8 = Integer.signum(
          Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));
      KeyValue ka = KeyValue.ofString(a);
      KeyValue kb = KeyValue.ofString(b);
      String why = "case " + i + ": " + ka + " vs " + kb;
      assertThat(why, Integer.signum(KeyValue.ORDER.compare(ka, kb)), equalTo(expected));
      assertThat(why, byUtf8, equalTo(expected));
      assertThat(why, ka.equals(kb), is(expected == 0));
      if (expected == 0) {
        assertThat(why, ka.hashCode(), equalTo(kb.hashCode()));
      }
      assertThat(why, Arrays.equals(ka.sortableBytes(), a.getBytes(StandardCharsets.UTF_8)), is(true));
      assertThat(why, KeyValue.of(KeyType.S, ka.bytes()).text(), equalTo(a));
    }
  }

  @Test
  void sortingWithOrderMatchesTheOracle() {
    Random rnd = new Random(SEED + 1);
    List<String> strings = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      strings.add(i % 4 == 0 || strings.isEmpty()
          ? RandomUnicode.string(rnd, 8)
          : RandomUnicode.mutate(rnd, strings.get(rnd.nextInt(strings.size()))));
    }
    List<KeyValue> keys = new ArrayList<>();
    strings.forEach(s -> keys.add(KeyValue.ofString(s)));
    keys.sort(KeyValue.ORDER);
    strings.sort((x, y) -> Arrays.compare(x.codePoints().toArray(), y.codePoints().toArray()));
    List<String> sorted = new ArrayList<>();
    keys.forEach(k -> sorted.add(k.text()));
    assertThat(sorted, equalTo(strings));
  }

  @Test
  void supplementaryCharactersSortAfterThePrivateUseArea() {
    KeyValue grinning = KeyValue.ofString("\uD83D\uDE00"); // U+1F600
    KeyValue privateUse = KeyValue.ofString("\uE000");
    // Java compares UTF-16 units: the high surrogate 0xD83D is below 0xE000.
    assertThat("\uD83D\uDE00".compareTo("\uE000"), lessThan(0));
    assertThat(KeyValue.ORDER.compare(grinning, privateUse), greaterThan(0));
    assertThat(KeyValue.ORDER.compare(KeyValue.ofString("\uFFFF"), grinning), lessThan(0));
    assertThat("\uFFFF".compareTo("\uD83D\uDE00"), greaterThan(0));
  }

  @Test
  void theOrderObservedOnDynamoDbLocal() {
    List<String> observed =
        List.of("a", "e\u0301", "\u00e9", "\u4e2d", "\uE000", "\uFFFD", "\uD83D\uDE00");
    List<KeyValue> shuffled = new ArrayList<>();
    for (int i = observed.size() - 1; i >= 0; i--) {
      shuffled.add(KeyValue.ofString(observed.get(i)));
    }
    shuffled.sort(KeyValue.ORDER);
    List<String> texts = new ArrayList<>();
    shuffled.forEach(k -> texts.add(k.text()));
    assertThat(texts, equalTo(observed));
  }

  @Test
  void nulAndPrefixes() {
    assertThat(KeyValue.ORDER.compare(KeyValue.ofString("a"), KeyValue.ofString("a\u0000")), lessThan(0));
    assertThat(KeyValue.ORDER.compare(KeyValue.ofString("a\u0000"), KeyValue.ofString("a\u0001")), lessThan(0));
    assertThat(KeyValue.ORDER.compare(KeyValue.ofString(""), KeyValue.ofString("\u0000")), lessThan(0));
    assertThat(KeyValue.ofString("a\u0000b").length(), equalTo(3));
  }

  @Test
  void binaryOrderIsUnsigned() {
    KeyValue low = KeyValue.ofBinary(new byte[] {0x7f});
    KeyValue high = KeyValue.ofBinary(new byte[] {(byte) 0x80});
    assertThat(KeyValue.ORDER.compare(high, low), greaterThan(0));
    assertThat(KeyValue.ORDER.compare(KeyValue.ofBinary(new byte[] {(byte) 0xff}),
        KeyValue.ofBinary(new byte[] {0x00, 0x00})), greaterThan(0));
    assertThat(KeyValue.ORDER.compare(KeyValue.ofBinary(new byte[] {1}), KeyValue.ofBinary(new byte[] {1, 0})),
        lessThan(0));

    Random rnd = new Random(SEED + 2);
    for (int i = 0; i < CASES; i++) {
      byte[] a = randomBytes(rnd);
      byte[] b = rnd.nextBoolean() ? randomBytes(rnd) : mutate(rnd, a);
      int expected = Integer.signum(unsignedLexicographic(a, b));
      KeyValue ka = KeyValue.ofBinary(a);
      KeyValue kb = KeyValue.ofBinary(b);
      assertThat(ka + " vs " + kb, Integer.signum(KeyValue.ORDER.compare(ka, kb)), equalTo(expected));
      assertThat(ka.equals(kb), is(expected == 0));
    }
  }

  @Test
  void binaryValuesAreCopied() {
    byte[] b = {1, 2, 3};
    KeyValue k = KeyValue.ofBinary(b);
    b[0] = 9;
    k.bytes()[1] = 9;
    assertThat(k.bytes(), equalTo(new byte[] {1, 2, 3}));
  }

  @Test
  void typesOrderAsSThenNThenB() {
    List<KeyValue> keys =
        new ArrayList<>(List.of(KeyValue.ofBinary(new byte[] {0}), KeyValue.ofNumber("-5"), KeyValue.ofString("z")));
    keys.sort(KeyValue.ORDER);
    List<KeyType> types = new ArrayList<>();
    keys.forEach(k -> types.add(k.type()));
    assertThat(types, contains(KeyType.S, KeyType.N, KeyType.B));
    assertThat(KeyValue.ofString("1").equals(KeyValue.ofNumber("1")), is(false));
  }

  @Test
  void parseAndDynamoJson() {
    assertThat(KeyValue.parse(KeyType.B, "gH8=").bytes(), equalTo(new byte[] {(byte) 0x80, 0x7f}));
    assertThat(KeyValue.parse(KeyType.B, "gH8=").toString(), equalTo("{\"B\":\"gH8=\"}"));
    assertThat(KeyValue.parse(KeyType.N, "1.50").toString(), equalTo("{\"N\":\"1.50\"}"));
    assertThat(KeyValue.parse(KeyType.S, "a\"b\\c\n\u0000").toString(),
        equalTo("{\"S\":\"a\\\"b\\\\c\\n\\u0000\"}"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> KeyValue.parse(KeyType.B, "not base64!"));
    assertThat(e.getMessage(), containsString("\"not base64!\" is not valid base64"));
  }

  static byte[] randomBytes(Random rnd) {
    byte[] b = new byte[rnd.nextInt(6)];
    for (int i = 0; i < b.length; i++) {
      // Mostly bytes around the sign boundary, where a signed comparison goes wrong.
      b[i] = (byte) (rnd.nextBoolean() ? 0x7e + rnd.nextInt(4) : rnd.nextInt(256));
    }
    return b;
  }

  static byte[] mutate(Random rnd, byte[] a) {
    byte[] b = Arrays.copyOf(a, Math.max(0, a.length + rnd.nextInt(3) - 1));
    if (b.length > 0 && rnd.nextBoolean()) {
      b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
    }
    return b;
  }

  static int unsignedLexicographic(byte[] a, byte[] b) {
    for (int i = 0; i < Math.min(a.length, b.length); i++) {
      int x = a[i] & 0xff;
      int y = b[i] & 0xff;
      if (x != y) {
        return x - y;
      }
    }
    return a.length - b.length;
  }
}
