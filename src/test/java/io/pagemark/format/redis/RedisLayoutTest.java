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
import redis.clients.jedis.util.JedisClusterCRC16;

/** Key names of a Redis index: binary-safe, distinct for distinct groups, and never colliding with each other. */
class RedisLayoutTest {
  final RedisLayout layout = new RedisLayout("pagemark:t:i:");

  @Test
  void hostileGroupKeysGetDistinctKeysThatShareOneSlotPerGroup() {
    List<KeyValue> groups = new ArrayList<>();
    for (String s : List.of("../x", "a/b", ".", "..", "CON", "nul\u0000byte", "k".repeat(1000), "\u00e9", "e\u0301",
        "A", "a", "with space", "new\nline", "back\\slash", "/etc/passwd", "meta", "groups", "tmp:x", "*", "[a]",
        "{index}", "{", "}", "{}", "a{b}c", "{meta}")) {
      groups.add(KeyValue.ofString(s));
    }
    Set<ByteBuffer> keys = new HashSet<>();
    keys.add(ByteBuffer.wrap(layout.metaKey()));
    keys.add(ByteBuffer.wrap(layout.leaseKey("b1")));
    keys.add(ByteBuffer.wrap(layout.streamKey()));
    keys.add(ByteBuffer.wrap(layout.deadLettersKey()));
    int indexSlot = JedisClusterCRC16.getSlot(layout.metaKey());
    assertThat(JedisClusterCRC16.getSlot(layout.leaseKey("b1")), is(indexSlot));
    assertThat(JedisClusterCRC16.getSlot(layout.streamKey()), is(indexSlot));
    assertThat(JedisClusterCRC16.getSlot(layout.deadLettersKey()), is(indexSlot));
    Set<Integer> slots = new HashSet<>();
    for (KeyValue g : groups) {
      byte[] field = RedisLayout.groupBytes(g);
      byte[] live = layout.liveKey(field);
      for (byte[] k : List.of(live, layout.stampKey(field), layout.tempKey("b1", field), layout.ledgerKey(field))) {
        assertThat(g.toString(), keys.add(ByteBuffer.wrap(k)), is(true));
        // what one script or transaction touches lives in one slot, whatever bytes the group key holds
        assertThat(g.toString(), JedisClusterCRC16.getSlot(k), is(JedisClusterCRC16.getSlot(live)));
      }
      String tag = new String(RedisLayout.groupTag(field), StandardCharsets.US_ASCII);
      assertThat(tag, tag.matches("\\{[0-9a-f]{32}\\}"), is(true));
      slots.add(JedisClusterCRC16.getSlot(live));
    }
    assertThat("groups spread over slots", slots.size() > groups.size() / 2, is(true));
  }

  @Test
  void aPrefixWithBracesIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RedisLayout("p:{x}:"));
    assertThat(e.getMessage(), containsString("choose a prefix without { and }"));
  }

  @Test
  void numericGroupsWrittenDifferentlyShareTheirKeys() {
    assertThat(layout.liveKey(RedisLayout.groupBytes(KeyValue.ofNumber("1.0"))),
        equalTo(layout.liveKey(RedisLayout.groupBytes(KeyValue.ofNumber("1")))));
  }

  @Test
  void temporaryKeysNameTheirBuild() {
    byte[] temp = layout.tempKey("20240101T000000Z-ab12", "g:x:y{t:}".getBytes(StandardCharsets.UTF_8));
    assertThat(layout.buildOfTempKey(temp), equalTo("20240101T000000Z-ab12"));
    assertThat(layout.buildOfTempKey(layout.liveKey(new byte[] {1})), nullValue());
    assertThat(new RedisLayout("other:").buildOfTempKey(temp), nullValue());
  }

  @Test
  void theScanPatternEscapesGlobCharactersOfThePrefix() {
    RedisLayout odd = new RedisLayout("p*[x]?\\:");
    String tag = "{" + "?".repeat(32) + "}";
    assertThat(new String(odd.tempKeyPattern(), StandardCharsets.UTF_8), equalTo("p\\*\\[x\\]\\?\\\\:" + tag + "t:*"));
    assertThat(new String(odd.tempKeyPattern("b1"), StandardCharsets.UTF_8),
        equalTo("p\\*\\[x\\]\\?\\\\:" + tag + "t:b1"));
    assertThat(new String(odd.stampKeyPattern(), StandardCharsets.UTF_8), equalTo("p\\*\\[x\\]\\?\\\\:" + tag + "s"));
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
