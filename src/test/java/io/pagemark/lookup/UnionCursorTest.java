package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cursors round-trip, stay short, and refuse any change: a flipped bit, other groups, another build or secret. */
class UnionCursorTest {
  static final byte[] SECRET = "0123456789abcdef-test-secret".getBytes(StandardCharsets.UTF_8);
  static final List<KeyValue> GROUPS =
      List.of(KeyValue.ofString("PRODUCT#42/5"), KeyValue.ofString("PRODUCT#42/3"));
  final UnionCursor cursors = UnionCursor.withSecret(SECRET);

  UnionPageStart start(long page, long pages, Order order) {
    return new UnionPageStart(GROUPS, page, 20, order, pages * 20, pages, "20261123T200922Z-5e2a", List.of(), 0);
  }

  @Test
  void theNextPageRoundTripsAndTheLastPageHasNone() throws Exception {
    for (Order order : Order.values()) {
      for (long page : new long[] {1, 291, 1L << 40}) {
        String c = cursors.next(start(page, (1L << 41), order));
        assertThat(c.length(), lessThanOrEqualTo(40));
        // the groups in another order are the same union
        assertThat(cursors.decode(c, List.of(GROUPS.get(1), GROUPS.get(0)), "20261123T200922Z-5e2a"),
            equalTo(new UnionCursor.Position(page + 1, 20, order)));
      }
      assertThat(cursors.next(start(7, 7, order)), nullValue());
    }
    assertThat(cursors.next(start(499, 1000, Order.ASC)).length(), lessThanOrEqualTo(31));
  }

  @Test
  void everyChangeIsRefused() {
    String c = cursors.next(start(499, 1000, Order.DESC));
    byte[] raw = Base64.getUrlDecoder().decode(c);
    for (int i = 0; i < raw.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] forged = raw.clone();
        forged[i] ^= (byte) (1 << bit);
        String f = Base64.getUrlEncoder().withoutPadding().encodeToString(forged);
        assertThrows(LookupException.class, () -> cursors.decode(f, GROUPS, "20261123T200922Z-5e2a"), "byte " + i);
      }
    }
    // the last character's unused bits: the same bytes, another text
    for (char last : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray()) {
      String f = c.substring(0, c.length() - 1) + last;
      if (!f.equals(c)) {
        assertThrows(LookupException.class, () -> cursors.decode(f, GROUPS, "20261123T200922Z-5e2a"), f);
      }
    }
    LookupException other = assertThrows(LookupException.class,
        () -> cursors.decode(c, List.of(GROUPS.get(0), KeyValue.ofString("PRODUCT#42/4")), "20261123T200922Z-5e2a"));
    assertThat(other.getMessage(), containsString("another set of groups"));
    LookupException build =
        assertThrows(LookupException.class, () -> cursors.decode(c, GROUPS, "20261124T000000Z-0000"));
    assertThat(build.getMessage(), containsString("another build"));
    UnionCursor otherSecret = UnionCursor.withSecret("another secret of 16+ bytes".getBytes(StandardCharsets.UTF_8));
    LookupException forged =
        assertThrows(LookupException.class, () -> otherSecret.decode(c, GROUPS, "20261123T200922Z-5e2a"));
    assertThat(forged.getMessage(), containsString("signature"));
    assertThrows(LookupException.class, () -> cursors.decode("not*base64", GROUPS, "b"));
    assertThrows(LookupException.class, () -> cursors.decode("", GROUPS, "b"));
    assertThrows(IllegalArgumentException.class, () -> UnionCursor.withSecret(new byte[15]));
  }
}
