package io.pagemark.pipelines;

import io.pagemark.pipelines.backfill.BackfillCommand;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.notNullValue;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/** The backfill against DynamoDB Local on the tricky table: every page of every group, in both orders. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
public class BackfillIT {
  static final String TABLE = "tricky";
  DynamoDbLocal local;
  DynamoDbClient client;
  List<Map<String, AttributeValue>> items;

  @BeforeAll
  void createTable(DynamoDbLocal local) throws Exception {
    this.local = local;
    client = local.client();
    TrickyTable.create(client, TABLE);
    items = TrickyTable.items(7);
    SampleComments.load(client, TABLE, items, 2, null);
  }

  @AfterAll
  void close() {
    client.close();
  }

  public static Result backfill(DynamoDbLocal local, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> argv = new ArrayList<>(List.of(args));
    argv.add("--dynamoEndpoint=" + local.endpoint());
    argv.add("--progressSeconds=0");
    int code = BackfillCommand.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  public record Result(int code, String out, String err) {}

  @Test
  void theBigGroupNeedsSeveralScanPagesPerSegment() {
    ScanResponse first = client.scan(b -> b.tableName(TABLE).segment(0).totalSegments(2).projectionExpression("PK"));
    assertThat("segment 0 of 2 must exceed one 1 MB scan page for this test to mean anything",
        first.hasLastEvaluatedKey() && !first.lastEvaluatedKey().isEmpty(), is(true));
  }

  @ParameterizedTest(name = "{0}: pages of {1}")
  @CsvSource({"byString,SK,7,200000", "byNumber,NUM,7,200000", "byBinary,BIN,5,200000", "byString,SK,1,200000",
      "byNumber,NUM,3,40"})
  void everyPageOfEveryGroupInBothOrdersIsDynamoDbsPage(String gsi, String sortAttribute, int pageSize,
      long maxPartEntries, @TempDir Path dir) throws Exception {
    Path out = dir.resolve("index");
    Result r = backfill(local, "--table=" + TABLE, "--gsi=" + gsi, "--output=" + out, "--segments=2",
        "--maxPartEntries=" + maxPartEntries);
    assertThat(r.err, r.code, is(0));

    Map<String, Integer> expected = TrickyTable.expectedCounts(items, sortAttribute);
    BuildInfo info;
    try (Index index = Indexes.open(out.toString())) {
      info = new IndexLayout(out).buildInfo(index.buildId());
      assertThat(info.counts().itemsScanned(), is((long) items.size()));
      assertThat(info.counts().groups(), is((long) expected.size()));
      assertThat(info.counts().tieRuns(), greaterThan(0L));
      assertThat(info.counts().tieRunsUnresolved(), is(0L));
      for (Map.Entry<String, Integer> g : expected.entrySet()) {
        if (pageSize == 1 && !g.getKey().equals("ties") && !g.getKey().equals("utf")) {
          continue; // page size 1 only where ties and tricky strings make every boundary count
        }
        try (GroupPages pages = index.group(g.getKey())) {
          assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
          for (boolean forward : new boolean[] {true, false}) {
            List<List<Map<String, AttributeValue>>> walk =
                PageWalk.pages(client, TABLE, gsi, g.getKey(), pageSize, forward);
            assertThat(pages.pages(pageSize), is((long) walk.size()));
            for (int n = 1; n <= walk.size(); n++) {
              PageStart start = pages.pageStart(n, pageSize, forward ? Order.ASC : Order.DESC);
              List<String> viaIndex = PageWalk.keys(PageWalk.fromStart(client, TABLE, gsi, start));
              assertThat("group " + g.getKey() + " page " + n + (forward ? " asc" : " desc"), viaIndex,
                  equalTo(PageWalk.keys(walk.get(n - 1))));
            }
          }
        }
      }
    }
  }

  @Test
  void noFileOutsideTheOutputAndHostileGroupsGetDistinctFiles(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("index");
    Result r = backfill(local, "--table=" + TABLE, "--gsi=byString", "--output=" + out);
    assertThat(r.err, r.code, is(0));
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString()).collect(Collectors.toList()), equalTo(List.of("index")));
    }
    String id;
    try (Index index = Indexes.open(out.toString())) {
      id = index.buildId();
      for (String g : TrickyTable.HOSTILE_GROUPS) {
        try (GroupPages pages = index.group(g)) {
          assertThat(pages.group().text(), equalTo(g));
        }
      }
    }
    List<String> files;
    try (Stream<Path> s = Files.walk(out)) {
      files = s.filter(Files::isRegularFile).map(p -> out.relativize(p).toString()).collect(Collectors.toList());
    }
    String build = "builds/" + id + "/";
    assertThat(files, everyItem(matchesPattern(
        "CURRENT|" + build + "(build\\.json|manifest\\.jsonl|groups/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{64}\\.pmi)")));
    long groupFiles = files.stream().filter(f -> f.endsWith(".pmi")).count();
    assertThat(groupFiles, is((long) TrickyTable.expectedCounts(items, "SK").size()));
  }

  @Test
  void twoBuildsWriteIdenticalGroupFilesApartFromBuildIdAndTime(@TempDir Path dir) throws Exception {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    assertThat(backfill(local, "--table=" + TABLE, "--gsi=byString", "--output=" + a, "--segments=3").code, is(0));
    // the second build splits big groups into parts of at most about 40 entries and joins them again
    assertThat(backfill(local, "--table=" + TABLE, "--gsi=byString", "--output=" + b, "--segments=5",
        "--maxPartEntries=40").code, is(0));
    Path ba = a.resolve("builds").resolve(new IndexLayout(a).currentBuildId());
    Path bb = b.resolve("builds").resolve(new IndexLayout(b).currentBuildId());
    List<Path> filesA = groupFiles(ba);
    assertThat(filesA.size(), greaterThan(10));
    assertThat(filesA.stream().map(ba::relativize).collect(Collectors.toList()),
        equalTo(groupFiles(bb).stream().map(bb::relativize).collect(Collectors.toList())));
    for (Path f : filesA) {
      byte[] x = Files.readAllBytes(f);
      byte[] y = Files.readAllBytes(bb.resolve(ba.relativize(f)));
      assertThat(f.toString(), y.length, is(x.length));
      int headerLength = java.nio.ByteBuffer.wrap(x).getInt(12);
      blankBuildFields(x, headerLength);
      blankBuildFields(y, headerLength);
      assertThat("group file " + ba.relativize(f) + " differs beyond build id and time",
          java.util.Arrays.equals(x, y), is(true));
    }
    assertThat(Files.readString(ba.resolve("manifest.jsonl")), equalTo(Files.readString(bb.resolve("manifest.jsonl"))));
  }

  /** Blanks the header fields that name the build: time (32..39), id (40..71) and the header checksum. */
  static void blankBuildFields(byte[] file, int headerLength) {
    java.util.Arrays.fill(file, 32, 72, (byte) 0);
    java.util.Arrays.fill(file, headerLength - 4, headerLength, (byte) 0);
  }

  static List<Path> groupFiles(Path build) throws IOException {
    try (Stream<Path> s = Files.walk(build.resolve("groups"))) {
      return s.filter(p -> p.toString().endsWith(".pmi")).sorted().collect(Collectors.toList());
    }
  }

  @Test
  void everySkippedItemIsCountedAndEveryBadOneIsADeadLetter(@TempDir Path dir) throws Exception {
    String table = "mixedTypes";
    TrickyTable.create(client, table);
    List<Map<String, AttributeValue>> mixed = new ArrayList<>();
    int noGroup = 0;
    int noSort = 0;
    int wrongType = 0;
    for (int i = 0; i < 200; i++) {
      Map<String, AttributeValue> it = new java.util.HashMap<>();
      it.put("PK", AttributeValue.fromS("p" + i));
      it.put("SK", AttributeValue.fromS("s" + i));
      if (i % 10 != 0) {
        it.put("PK2", AttributeValue.fromS("g" + (i % 3)));
      }
      switch (i % 4) {
        case 0: noSort += i % 10 != 0 ? 1 : 0; break;
        case 1: it.put("ALT", AttributeValue.fromN(Integer.toString(i))); wrongType += i % 10 != 0 ? 1 : 0; break;
        default: it.put("ALT", AttributeValue.fromS("alt" + i));
      }
      noGroup += i % 10 == 0 ? 1 : 0;
      mixed.add(it);
    }
    SampleComments.load(client, table, mixed, 2, null);
    Path out = dir.resolve("index");
    Result r = backfill(local, "--table=" + table, "--groupAttribute=PK2", "--sortAttribute=ALT",
        "--output=" + out);
    assertThat(r.err, r.code, is(0));
    assertThat(r.out, containsString(wrongType + " dead letters"));
    try (Index index = Indexes.open(out.toString())) {
      BuildInfo.Counts c = new IndexLayout(out).buildInfo(index.buildId()).counts();
      assertThat(c.itemsScanned(), is(200L));
      assertThat(c.skippedNoGroupKey(), is((long) noGroup));
      assertThat(c.skippedNoSortKey(), is((long) noSort));
      assertThat(c.deadLetters(), is((long) wrongType));
      assertThat(c.entries() + c.skippedNoGroupKey() + c.skippedNoSortKey() + c.deadLetters(), is(200L));
      List<String> lines = new ArrayList<>();
      try (Stream<Path> s = Files.list(out.resolve("builds").resolve(index.buildId()).resolve("deadletter"))) {
        for (Path p : s.collect(Collectors.toList())) {
          lines.addAll(Files.readAllLines(p));
        }
      }
      assertThat(lines.size(), is(wrongType));
      assertThat(lines, everyItem(containsString("attribute ALT is of type N, the index expects S")));
      assertThat(lines, everyItem(matchesPattern("\\{\"reason\":.*\"key\":\\{\"PK\":\\{\"S\":\"p\\d+\"},\"SK\".*")));
    }
  }

  @Test
  void aMissingIndexOrTableFailsWithAClearMessage(@TempDir Path dir) {
    Result r = backfill(local, "--table=" + TABLE, "--gsi=nope", "--output=" + dir.resolve("i"));
    assertThat(r.code, is(1));
    assertThat(r.err, containsString("table tricky has no global secondary index \"nope\""));
    r = backfill(local, "--table=absent", "--gsi=x", "--output=" + dir.resolve("i"));
    assertThat(r.code, is(1));
    assertThat(r.err, containsString("table absent does not exist"));
    r = backfill(local, "--table=" + TABLE, "--output=" + dir.resolve("i"));
    assertThat(r.code, is(2));
    assertThat(r.err, containsString("give --gsi=INDEX, or --groupAttribute and --sortAttribute"));
    assertThat(Files.exists(dir.resolve("i")), is(false));
  }

  @Test
  void lookupCliFollowsTheContract(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("index");
    assertThat(backfill(local, "--table=" + TABLE, "--gsi=byString", "--output=" + out).code, is(0));
    int ties = TrickyTable.expectedCounts(items, "SK").get("ties");
    long pages = (ties + 9) / 10;
    Result ok = cli("lookup", "--index=" + out, "--group=ties", "--page=2,1," + pages, "--pageSize=10",
        "--order=desc");
    assertThat(ok.err, ok.code, is(0));
    String[] lines = ok.out.split("\n");
    assertThat(lines.length, is(3));
    assertThat(lines[0], matchesPattern("\\{\"group\":\"ties\",\"page\":2,\"pageSize\":10,\"order\":\"desc\",\"count\":"
        + ties + ",\"pages\":" + pages + ",\"exclusiveStartKey\":\\{\"PK2\":\\{\"S\":\"ties\"},\"SK\":\\{\"S\":\"same-\\d\"},"
        + "\"PK\":\\{\"S\":\"item-\\d{5}\"}},\"skip\":0}"));
    assertThat(lines[1], containsString("\"page\":1,"));
    assertThat(lines[1], containsString("\"exclusiveStartKey\":null,\"skip\":0}"));

    Result outOfRange = cli("lookup", "--index=" + out, "--group=ties", "--page=1," + (pages + 1), "--pageSize=10");
    assertThat(outOfRange.code, is(3));
    assertThat(outOfRange.out, equalTo(""));
    assertThat(outOfRange.err, containsString("has " + pages + " pages of 10; page " + (pages + 1)
        + " is out of range"));
    Result unknown = cli("lookup", "--index=" + out, "--group=nope", "--page=1", "--pageSize=10");
    assertThat(unknown.code, is(3));
    assertThat(unknown.out, equalTo(""));
    for (String bad : new String[] {"--page=0", "--page=x", "--page=-1"}) {
      Result usage = cli("lookup", "--index=" + out, "--group=ties", bad, "--pageSize=10");
      assertThat(bad, usage.code, is(2));
      assertThat(usage.out, equalTo(""));
    }
    Result noIndex = cli("lookup", "--index=" + dir.resolve("missing"), "--group=ties", "--page=1", "--pageSize=10");
    assertThat(noIndex.code, is(1));
    assertThat(noIndex.err, containsString("no such index directory"));
  }

  public static Result cli(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aReaderOfTheCurrentBuildKeepsItWhileANewOneIsPublished(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("index");
    assertThat(backfill(local, "--table=" + TABLE, "--gsi=byString", "--output=" + out).code, is(0));
    try (Index before = Indexes.open(out.toString()); GroupPages ties = before.group("ties")) {
      PageStart p3 = ties.pageStart(3, 10, Order.ASC);
      assertThat(backfill(local, "--table=" + TABLE, "--gsi=byString", "--output=" + out).code, is(0));
      try (Index after = Indexes.open(out.toString())) {
        assertThat(after.buildId(), notNullValue());
        assertThat(after.buildId().equals(before.buildId()), is(false));
      }
      assertThat(ties.pageStart(3, 10, Order.ASC), equalTo(p3));
    }
  }
}
