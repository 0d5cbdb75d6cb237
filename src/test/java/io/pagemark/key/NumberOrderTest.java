package io.pagemark.key;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Property tests of DynamoDB's number order against {@link BigDecimal#compareTo} (the oracle): random decimals of up to
 * 38 significant digits over the whole range 1E-130 .. 9.99..E+125, both signs, zero, and each value written in
 * several ways. The order-preserving encoding ({@link SortableBytes}) must sort as the numbers do and be equal for
 * equal numbers.
 */
class NumberOrderTest {
  static final long SEED = 7_130_125L;
  static final BigDecimal MIN_POSITIVE = new BigDecimal("1E-130");
  static final BigDecimal MAX = new BigDecimal("9.9999999999999999999999999999999999999E+125");

  /** A valid DynamoDB number (null when a derived value falls outside the range). */
  static BigDecimal valid(BigDecimal d) {
    if (d.signum() == 0) {
      return d;
    }
    BigDecimal abs = d.abs();
    boolean ok = abs.compareTo(MIN_POSITIVE) >= 0 && abs.compareTo(MAX) <= 0
        && abs.stripTrailingZeros().precision() <= 38;
    return ok ? d : null;
  }

  static BigDecimal randomNumber(Random rnd) {
    if (rnd.nextInt(20) == 0) {
      return BigDecimal.ZERO;
    }
    int digits = rnd.nextInt(4) == 0 ? 38 : rnd.nextInt(4) == 0 ? 1 : 1 + rnd.nextInt(38);
    StringBuilder s = new StringBuilder().append((char) ('1' + rnd.nextInt(9)));
    for (int i = 1; i < digits; i++) {
      s.append((char) ('0' + rnd.nextInt(10)));
    }
    // value = 0.digits x 10^exponent, exponent in [-129, 126]; often at the ends of the range or near 1
    int exponent;
    switch (rnd.nextInt(4)) {
      case 0:
        exponent = -129 + rnd.nextInt(3);
        break;
      case 1:
        exponent = 124 + rnd.nextInt(3);
        break;
      case 2:
        exponent = -3 + rnd.nextInt(7);
        break;
      default:
        exponent = -129 + rnd.nextInt(256);
    }
    BigDecimal d = new BigDecimal(new BigInteger(s.toString()), digits - exponent);
    return rnd.nextBoolean() ? d.negate() : d;
  }

  /** A value close to {@code d}: one unit in the 38th digit away, a digit changed, negated, scaled by ten. */
  static BigDecimal neighbour(Random rnd, BigDecimal d) {
    if (d.signum() == 0) {
      return rnd.nextBoolean() ? MIN_POSITIVE : MIN_POSITIVE.negate();
    }
    int exponent = d.precision() - d.scale();
    BigDecimal ulp = BigDecimal.ONE.scaleByPowerOfTen(exponent - 38);
    switch (rnd.nextInt(6)) {
      case 0:
        return valid(d.add(ulp));
      case 1:
        return valid(d.subtract(ulp));
      case 2:
        return d.negate();
      case 3:
        return valid(d.scaleByPowerOfTen(rnd.nextBoolean() ? 1 : -1));
      case 4:
        return valid(d.round(new java.math.MathContext(1 + rnd.nextInt(d.precision()))));
      default:
        return valid(d.add(BigDecimal.ONE.scaleByPowerOfTen(exponent - 1 - rnd.nextInt(38))));
    }
  }

  /** Ways DynamoDB accepts the same number. */
  static List<String> renderings(BigDecimal d) {
    List<String> texts = new ArrayList<>();
    if (d.signum() == 0) {
      return List.of("0", "-0", "0.000", "0E+5", "-0.0E-3", "00");
    }
    texts.add(d.toString());
    texts.add(d.toPlainString());
    texts.add(d.toEngineeringString());
    texts.add(d.unscaledValue() + "E" + (-(long) d.scale()));
    texts.add(d.unscaledValue() + "e" + (-(long) d.scale()));
    BigDecimal padded = d.setScale(d.scale() + 3);
    if (padded.toPlainString().length() <= 200) {
      texts.add(padded.toPlainString());
    }
    texts.add(d.stripTrailingZeros().toString());
    return texts;
  }

  @Test
  void orderAndEncodingFollowBigDecimal() {
    Random rnd = new Random(SEED);
    List<BigDecimal> values = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      BigDecimal v = values.isEmpty() || rnd.nextInt(3) == 0
          ? randomNumber(rnd)
          : neighbour(rnd, values.get(rnd.nextInt(values.size())));
      if (v != null) {
        values.add(v);
      }
    }
    List<List<String>> texts = new ArrayList<>();
    values.forEach(v -> texts.add(renderings(v)));
    for (int i = 0; i < 12_000; i++) {
      List<String> a = texts.get(rnd.nextInt(texts.size()));
      List<String> b = rnd.nextInt(4) == 0 ? a : texts.get(rnd.nextInt(texts.size()));
      checkPair(a.get(rnd.nextInt(a.size())), b.get(rnd.nextInt(b.size())));
    }
  }

  static void checkPair(String ta, String tb) {
    int expected = Integer.signum(new BigDecimal(ta).compareTo(new BigDecimal(tb)));
    KeyValue a = KeyValue.ofNumber(ta);
    KeyValue b = KeyValue.ofNumber(tb);
    String why = ta + " vs " + tb;
    assertThat(why, Integer.signum(KeyValue.ORDER.compare(a, b)), equalTo(expected));
    assertThat(why, Integer.signum(Arrays.compareUnsigned(a.sortableBytes(), b.sortableBytes())),
        equalTo(expected));
    assertThat(why, Arrays.equals(a.sortableBytes(), SortableBytes.encodeNumber(ta)), is(true));
    assertThat(why, a.equals(b), is(expected == 0));
    if (expected == 0) {
      assertThat(why, a.hashCode(), equalTo(b.hashCode()));
      assertThat(why, a.sortableBytes(), equalTo(b.sortableBytes()));
    }
    assertThat(why, a.text(), equalTo(ta)); // the text DynamoDB returned is kept as is
    assertThat(why, DynamoNumber.parse(ta).toBigDecimal().compareTo(new BigDecimal(ta)), equalTo(0));
  }

  @Test
  void sortingKeysSortsNumbers() {
    Random rnd = new Random(SEED + 1);
    List<BigDecimal> values = new ArrayList<>();
    List<KeyValue> keys = new ArrayList<>();
    List<byte[]> encodings = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      BigDecimal v = randomNumber(rnd);
      values.add(v);
      KeyValue k = KeyValue.ofNumber(v.toString());
      keys.add(k);
      encodings.add(k.sortableBytes());
    }
    values.sort(null);
    keys.sort(KeyValue.ORDER);
    encodings.sort(Arrays::compareUnsigned);
    for (int i = 0; i < values.size(); i++) {
      assertThat(new BigDecimal(keys.get(i).text()).compareTo(values.get(i)), equalTo(0));
      assertThat(encodings.get(i), equalTo(SortableBytes.encodeNumber(values.get(i).toString())));
    }
  }

  @Test
  void equalValuesWrittenDifferentlyAreEqual() {
    List<String> ones = List.of("1.0", "1", "10E-1", "0.1E1", "1.000000", "100e-2", "+1", "01");
    for (String a : ones) {
      for (String b : ones) {
        checkPair(a, b);
        assertThat(a + " = " + b, KeyValue.ofNumber(a), equalTo(KeyValue.ofNumber(b)));
      }
    }
    checkPair("0", "-0.000");
    checkPair("-1.5", "-15E-1");
    checkPair("0.5", "0.51"); // a shorter digit string that is a prefix sorts first
    checkPair("-0.5", "-0.51");
    checkPair("9", "10");
    checkPair("-9", "-10");
  }

  @Test
  void theEndsOfTheRange() {
    List<String> sorted = List.of(
        "-9.9999999999999999999999999999999999999E+125",
        "-1E+125",
        "-1",
        "-1E-130",
        "0",
        "1E-130",
        "1.0000000000000000000000000000000000001E-130",
        "1E-129",
        "0.99999999999999999999999999999999999999",
        "1",
        "12345678901234567890123456789012345678",
        "1E+125",
        "9.9999999999999999999999999999999999998E+125",
        "9.9999999999999999999999999999999999999E+125");
    for (int i = 0; i < sorted.size(); i++) {
      for (int j = 0; j < sorted.size(); j++) {
        checkPair(sorted.get(i), sorted.get(j));
      }
    }
    // 39 written digits with one trailing zero are 38 significant digits
    KeyValue.ofNumber("123456789012345678901234567890123456780");
    KeyValue.ofNumber("1" + "0".repeat(100));
  }

  @Test
  void thirtyNineSignificantDigitsAreRejected() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> KeyValue.ofNumber("123456789012345678901234567890123456789"));
    assertThat(e.getMessage(), containsString("has 39 significant digits; DynamoDB allows 38"));
    assertThrows(IllegalArgumentException.class,
        () -> KeyValue.ofNumber("1.00000000000000000000000000000000000001"));
    assertThrows(IllegalArgumentException.class,
        () -> KeyValue.ofNumber("-0.000123456789012345678901234567890123456789"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "1E+126", "10E+125", "-1E+126", "1E-131", "0.9E-130", "-1.2345E-131",
      "99999999999999999999999999999999999999E+89", "1E+1000", "1E-1000", "10E+2147483647"})
  void outOfRangeExponentsAreRejected(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyValue.ofNumber(text));
    assertThat(e.getMessage(), containsString("outside DynamoDB's number range"));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "NaN", "Infinity", "-Infinity", " 1", "1 ", "", "1e", "e5", "0x10", "0x1p3", "1,5", "1_000", "--1", ".",
      "1.2.3", "١", "1E+2147483648", "1E-2147483649"})
  void textsThatAreNotNumbersAreRejected(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyValue.ofNumber(text));
    assertThat(e.getMessage(), containsString("is not a DynamoDB number"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"100E+2147483647", "-100e2147483647", "1000E+2147483647"})
  void exponentsThatOverflowWhileNormalizingAreRejectedNotThrownAsArithmeticErrors(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyValue.ofNumber(text));
    assertThat(e.getMessage(), containsString(text));
  }

  @Test
  void encodingOfKnownValues() {
    // Pins the number encoding described in docs/order.md: sign byte, biased exponent, digits + 1, terminator.
    assertThat(SortableBytes.encodeNumber("0"), equalTo(new byte[] {(byte) 0x80}));
    assertThat(SortableBytes.encodeNumber("1"), equalTo(new byte[] {(byte) 0xC0, (byte) 0x80, 0x01, 0x02, 0x00}));
    assertThat(SortableBytes.encodeNumber("-1"),
        equalTo(new byte[] {0x40, (byte) 0x7F, (byte) 0xFE, (byte) 0xFD, (byte) 0xFF}));
    assertThat(SortableBytes.encodeNumber("0.05"), equalTo(new byte[] {(byte) 0xC0, (byte) 0x7F, (byte) 0xFF, 0x06, 0x00}));
  }
}
