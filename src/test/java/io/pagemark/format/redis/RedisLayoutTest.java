package io.pagemark.format.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyValue;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Key names of a Redis index: binary-safe, distinct for distinct groups, and never colliding with each other. */
class RedisLayoutTest {
  final RedisLayout layout = new RedisLayout("pagemark:t:i:");

  @Test
  void hostileGroupKeysGetDistinctKeysThatEndWithTheirBytes() {
    List<KeyValue> groups = new ArrayList<>();
    for (String s : List.of("../x", "a/b", ".", "..", "CON", "nul\u0000byte", "k".repeat(1000), "\u00e9", "e\u0301",
        "A", "a", "with space", "new\nline", "back\\slash", "/etc/passwd", "meta", "groups", "tmp:x", "*", "[a]")) {
      groups.add(KeyValue.ofString(s));
    }
    Set<ByteBuffer> keys = new HashSet<>();
    keys.add(ByteBuffer.wrap(layout.metaKey()));
    keys.add(ByteBuffer.wrap(layout.groupsKey()));
    keys.add(ByteBuffer.wrap(layout.leaseKey("b1")));
    for (KeyValue g : groups) {
      byte[] live = layout.liveKey(RedisLayout.groupBytes(g));
      assertThat(g.toString(), keys.add(ByteBuffer.wrap(live)), is(true));
      assertThat(keys.add(ByteBuffer.wrap(layout.tempKey("b1", RedisLayout.groupBytes(g)))), is(true));
      byte[] raw = g.bytes();
      assertThat(ByteBuffer.wrap(live, live.length - raw.length, raw.length), equalTo(ByteBuffer.wrap(raw)));
    }
  }

  @Test
  void numericGroupsWrittenDifferentlyShareTheirKeys() {
    assertThat(layout.liveKey(RedisLayout.groupBytes(KeyValue.ofNumber("1.0"))),
        equalTo(layout.liveKey(RedisLayout.groupBytes(KeyValue.ofNumber("1")))));
  }

  @Test
  void temporaryKeysNameTheirBuild() {
    byte[] temp = layout.tempKey("20240101T000000Z-ab12", "g:x:y".getBytes(StandardCharsets.UTF_8));
    assertThat(layout.buildOfTempKey(temp), equalTo("20240101T000000Z-ab12"));
    assertThat(layout.buildOfTempKey(layout.liveKey(new byte[] {1})), nullValue());
    assertThat(new RedisLayout("other:").buildOfTempKey(temp), nullValue());
  }

  @Test
  void theScanPatternEscapesGlobCharactersOfThePrefix() {
    RedisLayout odd = new RedisLayout("p*[x]?\\:");
    assertThat(new String(odd.tempKeyPattern(), StandardCharsets.UTF_8), equalTo("p\\*\\[x\\]\\?\\\\:tmp:*"));
    assertThat(new String(odd.tempKeyPattern("b1"), StandardCharsets.UTF_8),
        equalTo("p\\*\\[x\\]\\?\\\\:tmp:b1:*"));
  }

  @Test
  void stampsHoldBuildAndStoredGroupKey() {
    byte[] stamp = RedisLayout.stamp("b-1", KeyValue.ofNumber("1E+2"));
    assertThat(RedisLayout.stampBuild(stamp), equalTo("b-1"));
    assertThat(new String(RedisLayout.stampGroup(stamp), StandardCharsets.UTF_8), equalTo("1E+2"));
    byte[] binary = RedisLayout.stamp("b-1", KeyValue.ofBinary(new byte[] {0, 0, 5}));
    assertThat(RedisLayout.stampGroup(binary), equalTo(new byte[] {0, 0, 5}));
    assertThrows(IllegalArgumentException.class, () -> RedisLayout.stampBuild("no zero".getBytes()));
  }

  @Test
  void defaultPrefixNamesTableAndIndex() {
    assertThat(RedisLayout.defaultPrefix("comments", "byProduct", "PK2", "SK"),
        equalTo("pagemark:comments:byProduct:"));
    assertThat(RedisLayout.defaultPrefix("comments", null, "PK2", "SK"), equalTo("pagemark:comments:PK2,SK:"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RedisLayout(""));
    assertThat(e.getMessage(), containsString("must not be empty"));
  }
}
