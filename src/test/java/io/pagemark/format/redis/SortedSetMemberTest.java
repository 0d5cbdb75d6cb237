package io.pagemark.format.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The member encoding: Redis's byte order of members is the index's rank order, and every member decodes back. */
class SortedSetMemberTest {
  /** The index's order within a group: sort key in DynamoDB's order, then position in the run of equal keys. */
  static final Comparator<IndexRecord> RANK_ORDER =
      Comparator.comparing(IndexRecord::sortKey, KeyValue.ORDER).thenComparingInt(IndexRecord::tiePosition);

  static List<KeyAttribute> attributes(KeyType sortType) {
    return List.of(
        new KeyAttribute("sort", sortType, KeyAttribute.INDEX_SORT_KEY),
        new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY),
        new KeyAttribute("BIN", KeyType.B, KeyAttribute.TABLE_SORT_KEY));
  }

  @ParameterizedTest
  @EnumSource(KeyType.class)
  void byteOrderOfMembersIsRankOrderAndEveryMemberDecodesBack(KeyType type) {
    Random r = new Random(11 + type.ordinal());
    List<KeyAttribute> attrs = attributes(type);
    for (int round = 0; round < 200; round++) {
      List<IndexRecord> records = new ArrayList<>();
      List<byte[]> members = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        IndexRecord rec = randomRecord(r, type);
        records.add(rec);
        members.add(SortedSetMember.encode(rec, attrs));
        assertThat(SortedSetMember.decode(members.get(i), attrs), equalTo(rec));
      }
      for (int a = 0; a < records.size(); a++) {
        for (int b = 0; b < records.size(); b++) {
          int expected = Integer.signum(RANK_ORDER.compare(records.get(a), records.get(b)));
          if (expected == 0) {
            continue; // one group never holds two records of equal sort key and tie position
          }
          int actual = Integer.signum(Arrays.compareUnsigned(members.get(a), members.get(b)));
          if (actual != expected) { // the message only on failure: building it for every pair is slow
            assertThat(records.get(a) + " vs " + records.get(b), actual, is(expected));
          }
        }
      }
    }
  }

  @Test
  void zeroBytesAndPrefixesKeepTheirOrder() {
    List<KeyAttribute> attrs = attributes(KeyType.B);
    List<byte[]> sorted = List.of(new byte[] {0}, new byte[] {0, 0}, new byte[] {0, 0, 1}, new byte[] {0, 1},
        new byte[] {0, (byte) 0xFF}, new byte[] {1}, new byte[] {1, 0}, new byte[] {(byte) 0xFF},
        new byte[] {(byte) 0xFF, 0}, new byte[] {(byte) 0xFF, (byte) 0xFF});
    for (int i = 0; i + 1 < sorted.size(); i++) {
      byte[] a = SortedSetMember.encode(record(KeyValue.ofBinary(sorted.get(i)), 0), attrs);
      byte[] b = SortedSetMember.encode(record(KeyValue.ofBinary(sorted.get(i + 1)), 0), attrs);
      assertThat(HexFormat.of().formatHex(a) + " < " + HexFormat.of().formatHex(b),
          Arrays.compareUnsigned(a, b) < 0, is(true));
    }
  }

  @Test
  void equalNumbersWrittenDifferentlyOrderByTiePositionAndKeepTheirText() {
    List<KeyAttribute> attrs = attributes(KeyType.N);
    IndexRecord a = new IndexRecord(0, 2, true, 1, keys(KeyValue.ofNumber("1E+2")));
    IndexRecord b = new IndexRecord(1, 2, true, 0, keys(KeyValue.ofNumber("100")));
    byte[] ea = SortedSetMember.encode(a, attrs);
    byte[] eb = SortedSetMember.encode(b, attrs);
    assertThat(Arrays.compareUnsigned(ea, eb) < 0, is(true));
    assertThat(SortedSetMember.decode(ea, attrs).sortKey().text(), equalTo("1E+2"));
    assertThat(SortedSetMember.decode(eb, attrs).sortKey().text(), equalTo("100"));
  }

  /** Pins format version 1 byte by byte (docs/redis.md, "Redis index format"). */
  @Test
  void goldenMember() {
    List<KeyAttribute> attrs = List.of(
        new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
        new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));
    IndexRecord r = new IndexRecord(2, 3, false, 0,
        List.of(KeyValue.ofString("a\u0000b"), KeyValue.ofString("comment-0001234")));
    assertThat(HexFormat.of().formatHex(SortedSetMember.encode(r, attrs)),
        equalTo("6100ff620000" + "00000002" + "07" + "00" + "0f" + "636f6d6d656e742d30303031323334"));
    IndexRecord n = IndexRecord.unique(List.of(KeyValue.ofNumber("-1.5"), KeyValue.ofString("x")));
    List<KeyAttribute> numeric = List.of(
        new KeyAttribute("N", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
        new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));
    // -1.5: sign 0x40, exponent 0x8001 and digits 1,5 (as 2,6) complemented, then 0xFF; no 0x00 to escape
    assertThat(HexFormat.of().formatHex(SortedSetMember.encode(n, numeric)),
        equalTo("407ffefdf9ff" + "0000" + "00000000" + "02" + "00" + "04" + "2d312e35" + "01" + "78"));
  }

  @Test
  void malformedMembersAreRejectedWithAReason() {
    List<KeyAttribute> attrs = attributes(KeyType.S);
    byte[] good = SortedSetMember.encode(record(KeyValue.ofString("abc"), 0), attrs);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> SortedSetMember.decode(Arrays.copyOf(good, good.length - 1), attrs));
    assertThat(e.getMessage(), containsString("member ends inside"));
    e = assertThrows(IllegalArgumentException.class,
        () -> SortedSetMember.decode(Arrays.copyOf(good, good.length + 1), attrs));
    assertThat(e.getMessage(), containsString("bytes after the last key value"));
    e = assertThrows(IllegalArgumentException.class,
        () -> SortedSetMember.decode(new byte[] {'a', 0, 7}, attrs));
    assertThat(e.getMessage(), containsString("bad escape"));
  }

  private static IndexRecord record(KeyValue sortKey, int tie) {
    return new IndexRecord(tie, tie + 1, true, 0, keys(sortKey));
  }

  private static List<KeyValue> keys(KeyValue sortKey) {
    return List.of(sortKey, KeyValue.ofString("item-1"), KeyValue.ofBinary(new byte[] {0, 1}));
  }

  static IndexRecord randomRecord(Random r, KeyType type) {
    int runLength = r.nextInt(4) == 0 ? 1 + r.nextInt(300) : 1;
    int tie = r.nextInt(runLength);
    int slot = r.nextInt(runLength);
    KeyValue sortKey;
    switch (type) {
      case S:
        sortKey = KeyValue.ofString(randomString(r));
        break;
      case N:
        sortKey = KeyValue.ofNumber(randomNumber(r));
        break;
      default:
        sortKey = KeyValue.ofBinary(randomBytes(r));
    }
    return new IndexRecord(tie, runLength, r.nextBoolean(), slot,
        List.of(sortKey, KeyValue.ofString(randomString(r)), KeyValue.ofBinary(randomBytes(r))));
  }

  private static final int[] CODE_POINTS = {0, 1, 'a', 'b', 0x7f, 0x80, 0xe9, 0x301, 0x4e2d, 0xe000, 0xfffd, 0x1f600};

  static String randomString(Random r) {
    StringBuilder b = new StringBuilder();
    int n = 1 + r.nextInt(5);
    for (int i = 0; i < n; i++) {
      b.appendCodePoint(r.nextInt(5) == 0 ? 1 + r.nextInt(0x10FFFF - 0x800) : CODE_POINTS[r.nextInt(CODE_POINTS.length)]);
    }
    String s = b.toString();
    return s.codePoints().anyMatch(c -> c >= 0xD800 && c <= 0xDFFF) ? "x" : s;
  }

  static String randomNumber(Random r) {
    if (r.nextInt(10) == 0) {
      return "0";
    }
    StringBuilder d = new StringBuilder();
    d.append(1 + r.nextInt(9));
    int n = r.nextInt(38);
    for (int i = 0; i < n; i++) {
      d.append(r.nextInt(3) == 0 ? 0 : r.nextInt(10));
    }
    return (r.nextBoolean() ? "-" : "") + d + "E" + (r.nextInt(60) - 30);
  }

  static byte[] randomBytes(Random r) {
    byte[] pool = {0, 1, 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff};
    byte[] b = new byte[1 + r.nextInt(5)];
    for (int i = 0; i < b.length; i++) {
      b[i] = pool[r.nextInt(pool.length)];
    }
    return b;
  }
}
