package io.pagemark.server.resp;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Numbers and patterns read as Redis reads them. */
class NumbersTest {
  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void integersAreStrictAsRedissString2ll() {
    assertThat(Numbers.parseLong(b("0")), equalTo(0L));
    assertThat(Numbers.parseLong(b("-12")), equalTo(-12L));
    assertThat(Numbers.parseLong(b("9223372036854775807")), equalTo(Long.MAX_VALUE));
    assertThat(Numbers.parseLong(b("-9223372036854775808")), equalTo(Long.MIN_VALUE));
    for (String bad : new String[] {"", "-", "007", "+1", " 1", "1 ", "-0", "9223372036854775808", "1.0", "1e3"}) {
      assertThat(bad, Numbers.parseLong(b(bad)), equalTo(null));
    }
  }

  @Test
  void scoresAreWhatStrtodTakes() {
    assertThat(Numbers.parseDouble(b("1e1"), 0), equalTo(10.0));
    assertThat(Numbers.parseDouble(b(" .5"), 0), equalTo(0.5));
    assertThat(Numbers.parseDouble(b("-inf"), 0), equalTo(Double.NEGATIVE_INFINITY));
    assertThat(Numbers.parseDouble(b("+Infinity"), 0), equalTo(Double.POSITIVE_INFINITY));
    assertThat(Numbers.parseDouble(b(""), 0), equalTo(0.0));
    for (String bad : new String[] {"nan", "1e", "1 ", "x", "1f", "0x", "--1"}) {
      assertThat(bad, Numbers.parseDouble(b(bad), 0), equalTo(null));
    }
    Numbers.ScoreRange r = Numbers.scoreRange(b("(1.5"), b("(4"));
    assertThat(r.lowestRank(), equalTo(2L));
    assertThat(r.highestRank(), equalTo(3L));
    assertThat(Numbers.scoreRange(b("-inf"), b("+inf")).lowestRank(), equalTo(Long.MIN_VALUE));
    assertThat(Numbers.scoreRange(b("1"), b("x")), equalTo(null));
  }

  @Test
  void globsMatchAsRedissStringmatch() {
    String[][] yes = {{"*", "anything"}, {"t?es", "ties"}, {"[a-c]x", "bx"}, {"[^a]x", "bx"}, {"a\\*", "a*"},
        {"*a*b", "xxaxxb"}, {"h[ae]llo", "hallo"}, {"**", ""}};
    String[][] no = {{"t?es", "tes"}, {"[^a]x", "ax"}, {"a\\*", "ab"}, {"*a*b", "xxaxx"}, {"h[ae]llo", "hillo"}};
    for (String[] c : yes) {
      assertThat(c[0] + " " + c[1], Glob.matches(b(c[0]), b(c[1])), is(true));
    }
    for (String[] c : no) {
      assertThat(c[0] + " " + c[1], Glob.matches(b(c[0]), b(c[1])), is(false));
    }
    byte[] hostile = b("*a".repeat(50) + "b");
    long t = System.nanoTime();
    assertThat(Glob.matches(hostile, b("a".repeat(1000))), is(false));
    assertThat("linear, not exponential", (System.nanoTime() - t) < 1_000_000_000L, is(true));
  }
}
