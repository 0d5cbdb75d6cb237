package io.pagemark.server.resp;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Members encoded from a record's bytes are exactly the exclusive start keys {@code pagemark lookup} prints (the
 * lookup library's {@code KeyValue.toString} and {@code Json.quote}), for random strings of every kind, numbers and
 * binaries; and a member parses back to its keys, in any attribute order.
 */
class MembersTest {
  static final List<KeyAttribute> ATTRIBUTES = List.of(
      new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("N\"um", KeyType.N, KeyAttribute.TABLE_SORT_KEY),
      new KeyAttribute("bin", KeyType.B, KeyAttribute.TABLE_PARTITION_KEY));

  @Test
  void encodingFromRecordBytesIsTheLookupsExclusiveStartKey() {
    Random r = new Random(11);
    for (int i = 0; i < 1000; i++) {
      KeyValue group = KeyValue.ofString(randomString(r));
      Members m = new Members("PK\u00e92", group, ATTRIBUTES);
      List<KeyValue> keys = List.of(KeyValue.ofString(randomString(r)),
          KeyValue.ofNumber(List.of("0", "-1E-130", "12345678901234567890123456789012345678", "1.50").get(i % 4)),
          KeyValue.ofBinary(randomBytes(r)));
      Map<String, KeyValue> key = new LinkedHashMap<>();
      key.put("PK\u00e92", group);
      for (int k = 0; k < ATTRIBUTES.size(); k++) {
        key.put(ATTRIBUTES.get(k).name(), keys.get(k));
      }
      Scratch out = new Scratch();
      byte[] record = values(keys);
      int n = m.encode(record, 0, out);
      String encoded = new String(out.array(), 0, n, StandardCharsets.UTF_8);
      assertThat(encoded, equalTo(SortedSetCommands.json(key)));
      assertThat(new String(m.encode(keys), StandardCharsets.UTF_8), equalTo(encoded));
      Members.Parsed p = m.parse(encoded.getBytes(StandardCharsets.UTF_8));
      assertThat(p.problem(), p.ok(), is(true));
      assertThat(p.keys(), equalTo(keys));
    }
  }

  @Test
  void membersParseInAnyOrderAndOnlyWhenWhole() {
    Members m = new Members("PK2", KeyValue.ofString("g"), ATTRIBUTES);
    String ok = "{\"bin\":{\"B\":\"AAE=\"},\"N\\\"um\":{\"N\":\"1.0\"},\"PK2\":{\"S\":\"g\"},\"SK\":{\"S\":\"x\"}}";
    assertThat(m.parse(ok.getBytes(StandardCharsets.UTF_8)).keys(),
        equalTo(List.of(KeyValue.ofString("x"), KeyValue.ofNumber("1"), KeyValue.ofBinary(new byte[] {0, 1}))));
    for (String bad : List.of("", "[]", "{\"PK2\":{\"S\":\"g\"}}", ok.replace("\"g\"", "\"h\""),
        ok.replace("\"N\":\"1.0\"", "\"N\":\"x\""), ok.replace("\"S\":\"x\"", "\"S\":\"\""),
        ok.replace("{\"bin\"", "{\"SK\":{\"S\":\"y\"},\"bin\""), "{\"PK2\":{\"S\":\"g\"},\"PK2\":{\"S\":\"g\"}}")) {
      Members.Parsed p = m.parse(bad.getBytes(StandardCharsets.UTF_8));
      assertThat(bad, p.ok(), is(false));
      assertThat(p.problem(), startsWith("member"));
    }
  }

  /** The stored values of a record, as the group file lays them out (length, bytes). */
  static byte[] values(List<KeyValue> keys) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (KeyValue k : keys) {
      byte[] v = k.bytes();
      b.write(v.length >> 8);
      b.write(v.length);
      b.writeBytes(v);
    }
    return b.toByteArray();
  }

  static String randomString(Random r) {
    StringBuilder b = new StringBuilder();
    int n = 1 + r.nextInt(12);
    int[] specials = {'"', '\\', '\n', '\r', '\t', 0, 1, 0x1f, 0x7f, 0x80, 0xe9, 0x2028, 0x2029, 0x4e2d, 0xe000,
        0xfffd, 0x1f600, ' ', '/', '<'};
    for (int i = 0; i < n; i++) {
      int c = r.nextInt(3) == 0 ? specials[r.nextInt(specials.length)] : 'a' + r.nextInt(26);
      b.appendCodePoint(c);
    }
    return b.toString();
  }

  static byte[] randomBytes(Random r) {
    byte[] b = new byte[1 + r.nextInt(7)];
    r.nextBytes(b);
    return b;
  }

  static List<KeyValue> list(KeyValue... v) {
    return new ArrayList<>(List.of(v));
  }
}
