package io.pagemark.server.http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UrlTextTest {
  @Test
  void hostileGroupsBecomeOneSegmentAndComeBackUnchanged() throws Exception {
    for (String g : List.of("../x", "a/b", "%2e%2e", "new\nline", "k".repeat(1000), "\u00e9", "e\u0301",
        "with space", "plus+sign", "back\\slash", "/etc/passwd", "nul\u0000byte", "?q=1#f", "\uD83D\uDE00")) {
      String segment = UrlText.segment(KeyValue.ofString(g));
      assertThat(segment, segment.matches("[A-Za-z0-9._~%-]+"), equalTo(true));
      assertThat(UrlText.group(KeyType.S, UrlText.decodeSegment(segment)), equalTo(KeyValue.ofString(g)));
    }
  }

  @Test
  void dotSegmentsAreEncoded() {
    assertThat(UrlText.segment(KeyValue.ofString(".")), equalTo("%2E"));
    assertThat(UrlText.segment(KeyValue.ofString("..")), equalTo("%2E%2E"));
    assertThat(UrlText.segment(KeyValue.ofString("..x")), equalTo("..x"));
  }

  @Test
  void randomUnicodeRoundTrips() throws Exception {
    Random r = new Random(3);
    for (int i = 0; i < 2000; i++) {
      StringBuilder b = new StringBuilder();
      for (int n = 1 + r.nextInt(12); n > 0; n--) {
        int cp = r.nextInt(4) == 0 ? r.nextInt(0x80) : r.nextInt(0x10FFFF);
        if (cp >= 0xD800 && cp <= 0xDFFF) {
          continue;
        }
        b.appendCodePoint(cp);
      }
      if (b.length() == 0) {
        continue;
      }
      KeyValue k = KeyValue.ofString(b.toString());
      assertThat(UrlText.group(KeyType.S, UrlText.decodeSegment(UrlText.segment(k))), equalTo(k));
    }
  }

  @Test
  void numbersAndBinaryKeys() throws Exception {
    assertThat(UrlText.group(KeyType.N, "1E+2"), equalTo(KeyValue.ofNumber("100")));
    KeyValue bin = KeyValue.ofBinary(new byte[] {(byte) 0xfb, (byte) 0xff, 0});
    assertThat(UrlText.text(bin), equalTo("-_8A"));
    assertThat(UrlText.group(KeyType.B, UrlText.decodeSegment(UrlText.segment(bin))), equalTo(bin));
    HttpFailure notNumber = assertThrows(HttpFailure.class, () -> UrlText.group(KeyType.N, "abc"));
    assertThat(notNumber.status(), equalTo(400));
    assertThat(notNumber.getMessage(), containsString("group keys are of type N"));
    assertThat(assertThrows(HttpFailure.class, () -> UrlText.group(KeyType.B, "a+b/")).status(), equalTo(400));
    assertThat(assertThrows(HttpFailure.class, () -> UrlText.group(KeyType.S, "")).status(), equalTo(400));
  }

  @Test
  void badEscapesAndNonUtf8AreBadRequests() {
    for (String bad : List.of("%", "%4", "%zz", "%FF", "%C3", "%ED%A0%80")) {
      HttpFailure f = assertThrows(HttpFailure.class, () -> UrlText.decodeSegment(bad), bad);
      assertThat(f.status(), equalTo(400));
    }
  }

  @Test
  void queryStrings() throws Exception {
    assertThat(UrlText.query("page=2&size=10&order=desc&&x"),
        equalTo(Map.of("page", "2", "size", "10", "order", "desc", "x", "")));
    assertThat(UrlText.query("build=a%2Bb+c").get("build"), equalTo("a+b c"));
    assertThat(UrlText.query(null), equalTo(Map.of()));
    HttpFailure twice = assertThrows(HttpFailure.class, () -> UrlText.query("page=1&page=2"));
    assertThat(twice.getMessage(), containsString("\"page\" is given twice"));
  }
}
