package io.pagemark.key;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A DynamoDB number: up to 38 significant digits, magnitude between 1E-130 and 9.9999999999999999999999999999999999999E+125,
 * or zero. Compared exactly (never through {@code double}). Equal values written differently ("1.50", "15E-1") are
 * equal here.
 */
final class DynamoNumber implements Comparable<DynamoNumber> {
  static final int MAX_DIGITS = 38;
  private static final String NUMBER_CHARS = "0123456789+-.eE";

  /** Sign: -1, 0 or 1. */
  final int signum;
  /** Significant digits without leading or trailing zeros ("" for zero). */
  final String digits;
  /** Value = 0.digits x 10^exponent (meaningless for zero). */
  final int exponent;

  private DynamoNumber(int signum, String digits, int exponent) {
    this.signum = signum;
    this.digits = digits;
    this.exponent = exponent;
  }

  static DynamoNumber parse(String text) {
    BigDecimal d;
    BigDecimal s;
    try {
      // BigDecimal also takes non-ASCII digits (Arabic-Indic, fullwidth, ...), which DynamoDB rejects.
      if (text.isEmpty() || text.length() > 200 || !text.chars().allMatch(c -> NUMBER_CHARS.indexOf(c) >= 0)) {
        throw new NumberFormatException();
      }
      d = new BigDecimal(text);
      // Overflows (ArithmeticException) for huge exponents with trailing zeros, e.g. "100E+2147483647".
      s = d.stripTrailingZeros();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("\"" + abbreviate(text) + "\" is not a DynamoDB number");
    }
    if (d.signum() == 0) {
      return new DynamoNumber(0, "", 0);
    }
    String digits = s.unscaledValue().abs().toString();
    if (digits.length() > MAX_DIGITS) {
      throw new IllegalArgumentException(
          "\"" + abbreviate(text) + "\" has " + digits.length() + " significant digits; DynamoDB allows "
              + MAX_DIGITS);
    }
    // value = unscaled x 10^-scale = 0.digits x 10^(len - scale)
    long exponent = (long) digits.length() - s.scale();
    // 1E-130 is 0.1 x 10^-129; 9.99..E+125 is 0.999.. x 10^126
    if (exponent < -129 || exponent > 126) {
      throw new IllegalArgumentException(
          "\"" + abbreviate(text) + "\" is outside DynamoDB's number range (1E-130 to 9.99E+125)");
    }
    return new DynamoNumber(s.signum(), digits, (int) exponent);
  }

  BigDecimal toBigDecimal() {
    if (signum == 0) {
      return BigDecimal.ZERO;
    }
    BigDecimal m = new BigDecimal(new BigInteger(digits), digits.length() - exponent);
    return signum < 0 ? m.negate() : m;
  }

  @Override
  public int compareTo(DynamoNumber o) {
    if (signum != o.signum) {
      return Integer.compare(signum, o.signum);
    }
    if (signum == 0) {
      return 0;
    }
    int magnitude = exponent != o.exponent ? Integer.compare(exponent, o.exponent) : digits.compareTo(o.digits);
    return signum > 0 ? magnitude : -magnitude;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DynamoNumber && compareTo((DynamoNumber) o) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * signum + digits.hashCode()) + exponent;
  }

  private static String abbreviate(String s) {
    return s.length() <= 60 ? s : s.substring(0, 57) + "...";
  }
}
