package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writer/reader round trips of group files, and the writer's refusals. */
class GroupFileTest {
  static final List<KeyAttribute> ATTRIBUTES = List.of(
      new KeyAttribute("SK2", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY),
      new KeyAttribute("SK", KeyType.B, KeyAttribute.TABLE_SORT_KEY));
  static final KeyValue GROUP = KeyValue.ofString("SKU-1");

  @TempDir Path dir;

  static List<KeyValue> keys(String sk2, String pk, int... sk) {
    byte[] b = new byte[sk.length];
    for (int i = 0; i < sk.length; i++) {
      b[i] = (byte) sk[i];
    }
    return List.of(KeyValue.ofNumber(sk2), KeyValue.ofString(pk), KeyValue.ofBinary(b));
  }

  static List<IndexRecord> sampleRecords() {
    String longKey = "\u00e9".repeat(500); // 1,000 bytes of UTF-8
    return List.of(
        IndexRecord.unique(keys("-1.50", "a", 0x00)),
        // a run of equal sort keys whose order DynamoDB told us (written three ways: the text is kept)
        new IndexRecord(0, 3, true, 2, keys("7", "\u00e9", 0x80)),
        new IndexRecord(1, 3, true, 0, keys("7.0", "e\u0301", 0x7f)),
        new IndexRecord(2, 3, true, 1, keys("70E-1", "\uD83D\uDE00", 0xff, 0x00)),
        // a run whose order is unknown
        new IndexRecord(0, 2, false, 1, keys("8", "b\u0000c", 1)),
        new IndexRecord(1, 2, false, 0, keys("8", "b", 1, 2, 3)),
        IndexRecord.unique(keys("9.99E+125", longKey, 0x41)));
  }

  @Test
  void recordsRoundTripExactly() throws IOException {
    Path file = dir.resolve("g.pmi");
    List<IndexRecord> records = sampleRecords();
    GroupHeader written = GroupFiles.write(file, "PK2", GROUP, ATTRIBUTES, "build-1", 1234L, records);

    List<IndexRecord> read = GroupFiles.readAll(file);
    assertThat(read, equalTo(records));
    for (int i = 0; i < records.size(); i++) {
      for (int k = 0; k < ATTRIBUTES.size(); k++) {
        // stored bytes, not just equal values: "7.0" stays "7.0"
        assertThat(read.get(i).keys().get(k).bytes(), equalTo(records.get(i).keys().get(k).bytes()));
      }
    }
    try (GroupFile f = GroupFile.open(file)) {
      GroupHeader h = f.header();
      assertThat(h, equalTo(written));
      assertThat(h.groupAttribute(), equalTo("PK2"));
      assertThat(h.groupKey(), equalTo(GROUP));
      assertThat(h.attributes(), equalTo(ATTRIBUTES));
      assertThat(h.entryCount(), equalTo((long) records.size()));
      assertThat(h.buildId(), equalTo("build-1"));
      assertThat(h.buildTimeMillis(), equalTo(1234L));
      f.verify();
    }
  }

  @Test
  void widthIsTheLongestRecordAndNothingIsTruncated() throws IOException {
    Path file = dir.resolve("g.pmi");
    List<IndexRecord> records = sampleRecords();
    GroupHeader h = GroupFiles.write(file, "PK2", GROUP, ATTRIBUTES, "b", 0L, records, GroupFileFormat.VERSION_1);
    int longest = 12 + (2 + "9.99E+125".length()) + (2 + 1000) + (2 + 1);
    assertThat(h.recordWidth(), equalTo(longest));
    byte[] bytes = Files.readAllBytes(file);
    assertThat((long) bytes.length, equalTo(h.length() + (long) records.size() * longest));
    assertThat(h.length() % 8, equalTo(0));
    assertThat(GroupFiles.readAll(file).get(6).keys().get(1).text(), equalTo("\u00e9".repeat(500)));
    MessageDigest sha = sha256();
    sha.update(bytes, h.length(), bytes.length - h.length());
    assertThat(h.recordsSha256(), equalTo(sha.digest()));
  }

  @Test
  void anEmptyGroupFileIsValid() throws IOException {
    Path file = dir.resolve("empty.pmi");
    GroupFiles.write(file, "PK2", GROUP, ATTRIBUTES, "b", 0L, List.of());
    try (GroupFile f = GroupFile.open(file)) {
      assertThat(f.count(), equalTo(0L));
      f.verify();
      assertThrows(IndexOutOfBoundsException.class, () -> f.record(0));
    }
  }

  @Test
  void aRecordWiderThanTheHeaderSaysIsRefusedNotTruncated() throws IOException {
    GroupHeader narrow = new GroupHeader("PK2", GROUP, ATTRIBUTES, 12 + 3 * 2 + 3, 0, 0, "b", new byte[32]);
    try (GroupFileWriter w = new GroupFileWriter(dir.resolve("n.pmi"), narrow)) {
      w.append(IndexRecord.unique(keys("1", "a", 1)));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> w.append(IndexRecord.unique(keys("12", "a", 1))));
      assertThat(e.getMessage(), containsString("more than the header's width of 21 bytes"));
    }
  }

  @Test
  void aValueLongerThanTheFormatAllowsIsRefused() throws IOException {
    String huge = "x".repeat(0x10000 + 5); // its length would wrap to 5 in the 2-byte length field
    GroupHeader wide = new GroupHeader("PK2", GROUP, ATTRIBUTES, 12 + 2 + 1 + 2 + huge.length() + 2 + 1, 0, 0, "b",
        new byte[32]);
    try (GroupFileWriter w = new GroupFileWriter(dir.resolve("w.pmi"), wide)) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> w.append(IndexRecord.unique(List.of(KeyValue.ofNumber("1"), KeyValue.ofString(huge),
              KeyValue.ofBinary(new byte[] {1})))));
      assertThat(e.getMessage(), containsString("65535"));
    }
  }

  @Test
  void recordsMustMatchTheDeclaredAttributes() throws IOException {
    GroupHeader h = new GroupHeader("PK2", GROUP, ATTRIBUTES, 100, 0, 0, "b", new byte[32]);
    try (GroupFileWriter w = new GroupFileWriter(dir.resolve("t.pmi"), h)) {
      IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
          () -> w.append(IndexRecord.unique(List.of(KeyValue.ofNumber("1")))));
      assertThat(count.getMessage(), containsString("record has 1 key values; the header declares 3"));
      IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
          () -> w.append(IndexRecord.unique(
              List.of(KeyValue.ofString("1"), KeyValue.ofString("a"), KeyValue.ofBinary(new byte[1])))));
      assertThat(type.getMessage(), containsString("attribute SK2 is declared N but the record holds S"));
    }
  }

  @Test
  void anUnfinishedFileIsNeverMistakenForAnIndex() throws IOException {
    Path file = dir.resolve("unfinished.pmi");
    GroupHeader h = new GroupHeader("PK2", GROUP, ATTRIBUTES, 100, 0, 0, "b", new byte[32]);
    try (GroupFileWriter w = new GroupFileWriter(file, h, GroupFileFormat.VERSION_1)) {
      w.append(IndexRecord.unique(keys("1", "a", 1)));
    }
    IndexFormatException e = assertThrows(IndexFormatException.class, () -> GroupFile.open(file));
    assertThat(e.getMessage(), containsString("bad magic"));
  }

  @Test
  void anUnfinishedVersion2FileLeavesNothingBehind() throws IOException {
    Path file = dir.resolve("unfinished2.pmi");
    GroupHeader h = new GroupHeader("PK2", GROUP, ATTRIBUTES, 100, 0, 0, "b", new byte[32]);
    try (GroupFileWriter w = new GroupFileWriter(file, h, GroupFileFormat.VERSION_2)) {
      w.append(IndexRecord.unique(keys("1", "a", 1)));
    }
    try (var left = Files.list(dir)) {
      assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("unfinished2")).toList(),
          equalTo(List.of()));
    }
  }

  @Test
  void headerInvariants() {
    List<KeyAttribute> sortKeyNotFirst = new ArrayList<>(ATTRIBUTES);
    java.util.Collections.reverse(sortKeyNotFirst);
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> new GroupHeader("PK2", GROUP, sortKeyNotFirst, 100, 0, 0, "b", new byte[32])).getMessage(),
        containsString("first stored attribute must be the index sort key"));
    assertThrows(IllegalArgumentException.class,
        () -> new GroupHeader("PK2", GROUP, ATTRIBUTES, 100, 0, 0, "x".repeat(33), new byte[32]));
    assertThrows(IllegalArgumentException.class,
        () -> new GroupHeader("PK2", GROUP, ATTRIBUTES, 100, 0, 0, "a b", new byte[32]));
    assertThrows(IllegalArgumentException.class,
        () -> new GroupHeader("PK2", GROUP, ATTRIBUTES, 100, 0, 0, "b", new byte[31]));
    byte[] sha = new byte[32];
    GroupHeader h = new GroupHeader("PK2", GROUP, ATTRIBUTES, 100, 0, 0, "x".repeat(32), sha);
    sha[0] = 1;
    h.recordsSha256()[1] = 1;
    assertThat(Arrays.equals(h.recordsSha256(), new byte[32]), is(true));
  }

  @Test
  void recordInvariants() {
    List<KeyValue> k = keys("1", "a", 1);
    assertThrows(IllegalArgumentException.class, () -> new IndexRecord(0, 0, true, 0, k));
    assertThrows(IllegalArgumentException.class, () -> new IndexRecord(2, 2, true, 0, k));
    assertThrows(IllegalArgumentException.class, () -> new IndexRecord(-1, 2, true, 0, k));
    assertThrows(IllegalArgumentException.class, () -> new IndexRecord(0, 2, true, 2, k));
    assertThat(IndexRecord.unique(k).sortKey(), equalTo(KeyValue.ofNumber("1")));
    assertThat(new String(k.get(1).bytes(), StandardCharsets.UTF_8), equalTo("a"));
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
