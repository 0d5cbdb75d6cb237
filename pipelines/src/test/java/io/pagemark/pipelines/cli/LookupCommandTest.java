package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.TestIndex;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.pipelines.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pagemark lookup} on small index directories written with the format classes: its JSON lines, exit codes
 * (0 ok, 1 failure, 2 usage, 3 not found or out of range) and that errors print nothing on stdout.
 */
class LookupCommandTest {
  @TempDir static Path tmp;
  static Path strings;
  static Path numbers;

  /**
   * Group "SKU-1" of 7 entries: a unique key, a run of three whose order DynamoDB gave (ascending c, b, d; descending
   * d, c, b), a run of two whose order is unknown, and a unique key; sort key N, table key S.
   */
  static List<IndexRecord> sku1() {
    return List.of(
        IndexRecord.unique(keys("1", "a")),
        new IndexRecord(0, 3, true, 2, keys("2", "c")),
        new IndexRecord(1, 3, true, 0, keys("2", "b")),
        new IndexRecord(2, 3, true, 1, keys("2", "d")),
        new IndexRecord(0, 2, false, 1, keys("3", "e")),
        new IndexRecord(1, 2, false, 0, keys("3", "f")),
        IndexRecord.unique(keys("4.50", "g")));
  }

  static List<KeyValue> keys(String sk2, String pk) {
    return List.of(KeyValue.ofNumber(sk2), KeyValue.ofString(pk));
  }

  @BeforeAll
  static void indexes() throws IOException {
    List<KeyAttribute> sAttributes = List.of(
        new KeyAttribute("SK2", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
        new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));
    strings = tmp.resolve("strings");
    new TestIndex(strings, "PK2", "S", sAttributes)
        .group(KeyValue.ofString("SKU-1"), List.of(IndexRecord.unique(keys("1", "old"))))
        .publish("b1", 1_000L);
    new TestIndex(strings, "PK2", "S", sAttributes)
        .group(KeyValue.ofString("SKU-1"), sku1())
        .group(KeyValue.ofString("\u00e9\"quoted\""), List.of(IndexRecord.unique(keys("1", "x"))))
        .publish("b2", 2_000L);

    numbers = tmp.resolve("numbers");
    new TestIndex(numbers, "G", "N", List.of(
            new KeyAttribute("SK", KeyType.B, KeyAttribute.INDEX_SORT_KEY | KeyAttribute.TABLE_SORT_KEY),
            new KeyAttribute("PK", KeyType.N, KeyAttribute.TABLE_PARTITION_KEY)))
        .group(KeyValue.ofNumber("42"), List.of(
            IndexRecord.unique(List.of(KeyValue.ofBinary(new byte[] {0x00, (byte) 0xff}), KeyValue.ofNumber("7"))),
            IndexRecord.unique(List.of(KeyValue.ofBinary(new byte[] {(byte) 0x80}), KeyValue.ofNumber("-1.5")))))
        .publish("n1", 3_000L);
  }

  record Run(int code, String out, String err) {
    List<String> lines() {
      return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }
  }

  static Run lookup(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> argv = new ArrayList<>(List.of("lookup"));
    argv.addAll(List.of(args));
    int code = Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static String line(int page, String order, String startKey, int skip) {
    return "{\"group\":\"SKU-1\",\"page\":" + page + ",\"pageSize\":2,\"order\":\"" + order
        + "\",\"count\":7,\"pages\":4,\"exclusiveStartKey\":" + startKey + ",\"skip\":" + skip + "}";
  }

  static String key(String sk2, String pk) {
    return "{\"PK2\":{\"S\":\"SKU-1\"},\"SK2\":{\"N\":\"" + sk2 + "\"},\"PK\":{\"S\":\"" + pk + "\"}}";
  }

  @Test
  void ascendingPagesInTheOrderAsked() {
    Run r = lookup("--index=" + strings, "--group=SKU-1", "--page=4,1,2,3", "--pageSize=2");
    assertThat(r.err, emptyString());
    assertThat(r.code, equalTo(ExitCode.OK));
    assertThat(r.lines(), equalTo(List.of(
        line(4, "asc", key("2", "d"), 2), // the unknown run before page 4 is stepped over: skip its 2 items
        line(1, "asc", "null", 0),
        line(2, "asc", key("2", "c"), 0),
        line(3, "asc", key("2", "d"), 0))));
    assertThat(r.out, equalTo(String.join("\n", r.lines()) + "\n"));
  }

  @Test
  void descendingPages() {
    Run r = lookup("--index=" + strings, "--group=SKU-1", "--page=1,2,3,4", "--pageSize=2", "--order=DESC");
    assertThat(r.err, emptyString());
    assertThat(r.code, equalTo(ExitCode.OK));
    assertThat(r.lines(), equalTo(List.of(
        line(1, "desc", "null", 0),
        line(2, "desc", key("4.50", "g"), 1),
        line(3, "desc", key("2", "d"), 0),
        line(4, "desc", key("2", "b"), 0))));
  }

  @Test
  void numberAndBinaryKeysInDynamoDbJson() {
    Run r = lookup("--index=" + numbers, "--group=42.0", "--page=2", "--pageSize=1");
    assertThat(r.err, emptyString());
    assertThat(r.code, equalTo(ExitCode.OK));
    assertThat(r.out, equalTo("{\"group\":\"42\",\"page\":2,\"pageSize\":1,\"order\":\"asc\",\"count\":2,"
        + "\"pages\":2,\"exclusiveStartKey\":{\"G\":{\"N\":\"42\"},\"SK\":{\"B\":\"AP8=\"},\"PK\":{\"N\":\"7\"}},"
        + "\"skip\":0}\n"));
  }

  @Test
  void groupNamesAreQuotedAsJson() {
    Run r = lookup("--index=" + strings, "--group=\u00e9\"quoted\"", "--page=1", "--pageSize=5");
    assertThat(r.code, equalTo(ExitCode.OK));
    assertThat(r.out, startsWith("{\"group\":\"\u00e9\\\"quoted\\\"\",\"page\":1,"));
  }

  @Test
  void anOlderBuild() {
    Run r = lookup("--index=" + strings, "--group=SKU-1", "--page=1", "--pageSize=2", "--build=b1");
    assertThat(r.code, equalTo(ExitCode.OK));
    assertThat(r.out, containsString("\"count\":1,\"pages\":1,"));
  }

  static void assertUsageError(Run r, String message) {
    assertThat(r.code, equalTo(ExitCode.USAGE));
    assertThat(r.out, emptyString());
    assertThat(r.err, allOf(startsWith("pagemark lookup: " + message + "\n"),
        containsString("\nusage: pagemark lookup --index=DIR|redis://"), containsString(" --group=G"),
        containsString(" [--page=N[,N...]] [--pageSize=S] ")));
  }

  @Test
  void usageErrors() {
    String index = "--index=" + strings;
    assertUsageError(lookup(index, "--group=SKU-1", "--page=1", "--pageSize=2", "--colour=red"),
        "unknown option --colour");
    assertUsageError(lookup(index, "--group=SKU-1", "--page=1"), "missing required option --pageSize");
    assertUsageError(lookup("--group=SKU-1", "--page=1", "--pageSize=2"), "missing required option --index");
    assertUsageError(lookup(index, "--group=SKU-1", "--page=one", "--pageSize=2"),
        "--page must be a whole number, not \"one\"");
    assertUsageError(lookup(index, "--group=SKU-1", "--page=0", "--pageSize=2"),
        "--page must be between 1 and " + Long.MAX_VALUE + ", not 0");
    assertUsageError(lookup(index, "--group=SKU-1", "--page=1", "--pageSize=0"),
        "--pageSize must be between 1 and 1000000, not 0");
    assertUsageError(lookup(index, "--group=SKU-1", "--page=1", "--pageSize=2", "--order=sideways"),
        "--order must be asc or desc, not \"sideways\"");
    assertUsageError(lookup(index, "--group=SKU-1", "--page=1", "--pageSize=2", "--build=../b1"),
        "build id \"../b1\" must be 1 to 32 letters, digits, '.', '_' or '-', not starting with '.'");
    assertUsageError(lookup(index, "SKU-1"), "unexpected argument \"SKU-1\" (options look like --name=value)");
  }

  @Test
  void aPageOutOfRangePrintsNoPageAtAll() {
    Run r = lookup("--index=" + strings, "--group=SKU-1", "--page=1,5", "--pageSize=2");
    assertThat(r.code, equalTo(ExitCode.NOT_FOUND));
    assertThat(r.out, emptyString());
    assertThat(r.err,
        equalTo("pagemark lookup: group {\"S\":\"SKU-1\"} has 4 pages of 2; page 5 is out of range\n"));
  }

  @Test
  void groupsThatAreNotThere() {
    Run missing = lookup("--index=" + strings, "--group=SKU-2", "--page=1", "--pageSize=2");
    assertThat(missing.code, equalTo(ExitCode.NOT_FOUND));
    assertThat(missing.out, emptyString());
    assertThat(missing.err,
        equalTo("pagemark lookup: group {\"S\":\"SKU-2\"} is not in build b2 of the index\n"));

    for (String notANumber : List.of("abc", "100E+2147483647", "1E+126")) {
      Run r = lookup("--index=" + numbers, "--group=" + notANumber, "--page=1", "--pageSize=2");
      assertThat(notANumber, r.code, equalTo(ExitCode.NOT_FOUND));
      assertThat(r.out, emptyString());
      assertThat(r.err, containsString("group \"" + notANumber + "\" cannot be a key of this index"));
    }
  }

  @Test
  void aCorruptGroupFileIsAFailure() throws IOException {
    Path index = tmp.resolve("corrupt");
    new TestIndex(index, "PK2", "S", List.of(new KeyAttribute("SK2", KeyType.N, KeyAttribute.INDEX_SORT_KEY)))
        .group(KeyValue.ofString("g"), List.of(IndexRecord.unique(List.of(KeyValue.ofNumber("1")))))
        .publish("c1", 0L);
    Path file = GroupPaths.resolve(new IndexLayout(index).build("c1"), KeyValue.ofString("g"));
    byte[] b = Files.readAllBytes(file);
    b[30] ^= 1; // the entry count, covered by the header checksum
    Files.write(file, b);

    Run r = lookup("--index=" + index, "--group=g", "--page=1", "--pageSize=2");
    assertThat(r.code, equalTo(ExitCode.FAILURE));
    assertThat(r.out, emptyString());
    assertThat(r.err, allOf(startsWith("pagemark lookup: "), containsString(file.toString()),
        containsString("corrupt header (checksum mismatch)")));
  }

  @Test
  void aMissingIndexIsAFailure() {
    Run r = lookup("--index=" + tmp.resolve("nowhere"), "--group=g", "--page=1", "--pageSize=2");
    assertThat(r.code, equalTo(ExitCode.FAILURE));
    assertThat(r.out, emptyString());
    assertThat(r.err, containsString("no such index directory"));

    Run build = lookup("--index=" + strings, "--group=g", "--page=1", "--pageSize=2", "--build=b7");
    assertThat(build.code, equalTo(ExitCode.FAILURE));
    assertThat(build.err, containsString("build b7 not found"));
  }
}
