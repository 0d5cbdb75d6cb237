package io.pagemark.pipelines.s3;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;

import io.pagemark.format.GroupPaths;
import io.pagemark.format.s3.S3IndexStore;
import io.pagemark.format.s3.S3Location;
import io.pagemark.format.s3.S3Reads;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.s3.S3Indexes;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.union.UnionWalk;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.S3Proxy;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.S3ProxyExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The backfill test table built into S3 (a real S3 API: s3proxy on loopback) on the DirectRunner (sort key a string)
 * and on local Flink (a number), big groups split into parts: every page of every group in both orders through the S3
 * index equals DynamoDB's walk; a record is one GET of exactly its bytes; the objects are the file layout and
 * nothing else; missing, truncated and foreign objects, and a store that denies the credentials, fail with the file
 * index's errors.
 */
@ExtendWith({DynamoDbLocalExtension.class, S3ProxyExtension.class})
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class S3BackfillIT {
  static final String TABLE = "trickyS3";
  DynamoDbLocal local;
  DynamoDbClient client;
  S3Proxy s3;
  List<Map<String, AttributeValue>> items;
  String bucket;

  @BeforeAll
  void setUp(DynamoDbLocal local, S3Proxy s3) throws Exception {
    this.local = local;
    this.s3 = s3;
    client = local.client();
    TrickyTable.create(client, TABLE);
    items = TrickyTable.items(13);
    SampleComments.load(client, TABLE, items, 2, null);
    bucket = s3.createBucket("backfill");
  }

  @AfterAll
  void close() {
    client.close();
  }

  private BackfillIT.Result backfill(String output, String gsi, String... more) {
    List<String> argv = new ArrayList<>(List.of("backfill", "--table=" + TABLE, "--gsi=" + gsi, "--output=" + output,
        "--s3Endpoint=" + s3.endpoint(), "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=0"));
    argv.addAll(List.of(more));
    return BackfillIT.cli(argv.toArray(String[]::new));
  }

  /** The index's spec with the endpoint, as a library user opens it. */
  private String spec(String prefix) {
    return s3.spec(bucket, prefix);
  }

  @Test
  @org.junit.jupiter.api.Order(1)
  void directRunnerWithPartsEveryPageIsDynamoDbsPage() throws Exception {
    long t = System.nanoTime();
    BackfillIT.Result r = backfill("s3://" + bucket + "/direct", TrickyTable.BY_STRING, "--segments=2",
        "--maxPartEntries=40");
    System.err.printf("S3BackfillIT: DirectRunner build to S3 took %.1f s%n", (System.nanoTime() - t) / 1e9);
    assertThat(r.err(), r.code(), is(0));
    assertThat(r.out(), containsString("to s3://" + bucket + "/direct: " + String.format("%,d", items.size())
        + " items scanned"));
    try (Index index = Indexes.open(spec("direct"))) {
      long pages = EveryPage.assertEqualsDynamoDb(index, client, TABLE, TrickyTable.BY_STRING,
          TrickyTable.expectedCounts(items, "SK"), 7);
      assertThat(pages, greaterThan(100L));
      // a union of groups read from S3, walked by cursor (issue 15: unions on every backend)
      UnionWalk.assertEveryPage(client, TABLE, TrickyTable.BY_STRING, "SK", KeyType.S, index,
          List.of("ties", "utf", TrickyTable.HOSTILE_GROUPS.get(0)), 7);
      for (String g : TrickyTable.HOSTILE_GROUPS) {
        try (GroupPages p = index.group(g)) {
          assertThat(p.group().text(), equalTo(g));
        }
      }
    }
    try (S3IndexStore store = new S3IndexStore(S3Location.parse(spec("direct")))) {
      String id = store.currentBuildId();
      List<String> keys = store.list("").stream().map(o -> o.key()).toList();
      String build = "direct/builds/" + id + "/";
      assertThat("no part file, no stray object", keys, everyItem(matchesPattern("direct/CURRENT|" + build
          + "(build\\.json|manifest\\.jsonl|groups/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{64}\\.pmi)")));
      assertThat(keys.stream().filter(k -> k.endsWith(".pmi")).count(),
          is((long) TrickyTable.expectedCounts(items, "SK").size()));
    }
  }

  @Test
  @org.junit.jupiter.api.Order(2)
  void aRecordIsOneGetOfExactlyItsBytes() throws Exception {
    try (Index index = Indexes.open(spec("direct"))) {
      S3Reads reads = S3Indexes.reads(index);
      try (GroupPages big = index.group("big")) {
        int width = recordWidth("direct", index.buildId(), "big");
        long size;
        try (S3IndexStore store = new S3IndexStore(S3Location.parse(spec("direct")))) {
          size = store.read("builds/" + index.buildId() + "/" + GroupPaths.relativePath(KeyValue.ofString("big")))
              .length;
        }
        // a group file within the first GET's 4 KiB (format v2 holds these 400 entries in about 3 KiB) is read
        // whole on open, and its records cost no further GET
        boolean inFirstGet = size <= 4096;
        for (long page : new long[] {big.pages(20) / 2, big.pages(20)}) {
          long gets = reads.gets();
          long bytes = reads.bytes();
          big.pageStart(page, 20, Order.ASC);
          assertThat("GETs for the record before page " + page, reads.gets() - gets, is(inFirstGet ? 0L : 1L));
          assertThat("exactly the record's bytes", reads.bytes() - bytes, is(inFirstGet ? 0L : (long) width));
        }
        long gets = reads.gets();
        try (GroupPages again = index.group("big")) {
          again.pageStart(1, 20, Order.ASC); // page 1 starts at the group's start: no record to read
        }
        assertThat("the group's header is cached", reads.gets(), is(gets));
      }
    }
  }

  /** A group's record width, from its build's manifest. */
  private int recordWidth(String prefix, String buildId, String group) throws Exception {
    try (S3IndexStore store = new S3IndexStore(S3Location.parse(spec(prefix)))) {
      String manifest = new String(store.read("builds/" + buildId + "/manifest.jsonl"), StandardCharsets.UTF_8);
      for (String line : manifest.split("\n")) {
        if (line.startsWith("{\"group\":{\"S\":\"" + group + "\"}")) {
          return Integer.parseInt(line.replaceAll(".*\"recordWidth\":(\\d+).*", "$1"));
        }
      }
    }
    throw new AssertionError("group " + group + " is not in the manifest");
  }

  @Test
  @org.junit.jupiter.api.Order(3)
  void localFlinkNumbersWithPartsEveryPageIsDynamoDbsPage() throws Exception {
    long t = System.nanoTime();
    BackfillIT.Result r = backfill("s3://" + bucket + "/flink/", TrickyTable.BY_NUMBER, "--segments=4",
        "--maxPartEntries=40", "--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");
    System.err.printf("S3BackfillIT: local Flink build to S3 took %.1f s%n", (System.nanoTime() - t) / 1e9);
    assertThat(r.err(), r.code(), is(0));
    try (Index index = Indexes.open(spec("flink"))) {
      long pages = EveryPage.assertEqualsDynamoDb(index, client, TABLE, TrickyTable.BY_NUMBER,
          TrickyTable.expectedCounts(items, "NUM"), 11);
      assertThat(pages, greaterThan(100L));
    }
  }

  @Test
  @org.junit.jupiter.api.Order(4)
  void missingDamagedAndForeignObjectsFailWithWhatWasWrong() throws Exception {
    String endpoint = "--s3Endpoint=" + s3.endpoint();
    BackfillIT.Result noBucket = BackfillIT.cli("lookup", "--index=s3://no-such-bucket/x", endpoint, "--group=ties",
        "--page=1", "--pageSize=10");
    assertThat(noBucket.code(), is(1));
    assertThat(noBucket.err(), containsString("no such bucket in S3 at " + s3.endpoint()));
    BackfillIT.Result noCurrent = BackfillIT.cli("lookup", "--index=s3://" + bucket + "/empty", endpoint,
        "--group=ties", "--page=1", "--pageSize=10");
    assertThat(noCurrent.code(), is(1));
    assertThat(noCurrent.err(), containsString("s3://" + bucket + "/empty/CURRENT: no published build under this"
        + " prefix"));
    BackfillIT.Result noGroup = BackfillIT.cli("lookup", "--index=s3://" + bucket + "/direct", endpoint,
        "--group=nope", "--page=1", "--pageSize=10");
    assertThat(noGroup.code(), is(3));
    try (S3Proxy strict = S3Proxy.startRequiring("someone-else", "their-secret")) {
      BackfillIT.Result denied = BackfillIT.cli("lookup", "--index=s3://" + bucket + "/direct",
          "--s3Endpoint=" + strict.endpoint(), "--group=ties", "--page=1", "--pageSize=10");
      assertThat(denied.code(), is(1));
      assertThat(denied.err(), containsString("S3 at " + strict.endpoint() + " denied the request"));
      assertThat(denied.err(), containsString("check the credentials the AWS default chain finds"));
    }
    BackfillIT.Result badSpec = BackfillIT.cli("lookup", "--index=s3://" + bucket + "/direct?colour=red",
        "--group=ties", "--page=1", "--pageSize=10");
    assertThat(badSpec.code(), is(2));

    // damage copies of the direct build's group file of "ties": truncated, then foreign
    try (S3IndexStore store = new S3IndexStore(S3Location.parse(spec("direct")))) {
      String id = store.currentBuildId();
      String file = "builds/" + id + "/" + io.pagemark.format.GroupPaths.relativePath(
          io.pagemark.key.KeyValue.ofString("ties"));
      byte[] good = store.read(file);
      for (String damaged : List.of("truncated", "foreign")) {
        String prefix = "damaged-" + damaged;
        try (S3IndexStore copy = new S3IndexStore(S3Location.parse(spec(prefix)))) {
          for (String f : List.of("build.json", "manifest.jsonl")) {
            copy.put("builds/" + id + "/" + f, store.read("builds/" + id + "/" + f));
          }
          copy.put(file, damaged.equals("truncated") ? java.util.Arrays.copyOf(good, good.length - 3)
              : "<html>not an index</html>".getBytes(StandardCharsets.UTF_8));
          copy.put("CURRENT", (id + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        BackfillIT.Result r = BackfillIT.cli("lookup", "--index=s3://" + bucket + "/" + prefix, endpoint,
            "--group=ties", "--page=1", "--pageSize=10");
        assertThat(damaged, r.code(), is(1));
        assertThat(r.err(), containsString("s3://" + bucket + "/" + prefix + "/" + file + ": "
            + (damaged.equals("truncated") ? "truncated" : "not a pagemark group file")));
      }
    }
  }
}
