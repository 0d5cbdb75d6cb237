package io.pagemark.bench;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.lookup.UnionPage;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.sink.file.WriteIndexFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * Numbered pages over a union of groups ("rating 5 or 4"): page P (500; 20 in quick mode) of a 2-group and a 5-group
 * union of ratings-like groups (skewed sizes, equal sort keys inside and across groups), 20 a page, through the index
 * ({@link PageReader#read(List, long, int, Order)}: one Query per group with items on the page) against the method of
 * the second seed: k Queries a page (one per group, 20 items each, from one LastEvaluatedKey per group), merged,
 * walked from page 1. Both pages must be equal, or the run fails. Also the index records the lookup reads to place
 * the page (goal: under 40 per group; every positioned record read counts, the selection's and the start keys')
 * against the items the walk reads, and the size of the signed cursor against the seed's JSON cursor.
 */
final class UnionPagesBench implements Bench {
  static final String TABLE = "ratings";
  static final String GSI = SampleComments.GSI;
  /** Shares of the ratings 5, 4, 3, 2, 1. */
  static final double[] SHARES = {0.50, 0.25, 0.13, 0.08, 0.04};

  @Override
  public String id() {
    return "union-pages";
  }

  static int page(Sizes sizes) {
    return sizes.mode().equals("quick") ? 20 : 500;
  }

  static int items(Sizes sizes) {
    return sizes.mode().equals("quick") ? 1_000 : 20_100;
  }

  static String group(int rating) {
    return "PRODUCT#42/" + rating;
  }

  @Override
  public List<String> figures(Sizes sizes) {
    List<String> names = new ArrayList<>();
    for (int k : new int[] {2, 5}) {
      names.add(name(k, page(sizes), "DynamoDB requests, index vs per-group cursor walk"));
      names.add(name(k, page(sizes), "read capacity, index vs per-group cursor walk"));
      names.add(name(k, page(sizes), "index record reads to place the page, vs items the walk reads"));
    }
    names.add("union cursor bytes, signed cursor vs per-group LastEvaluatedKey JSON");
    return names;
  }

  static String name(int k, int page, String what) {
    return "union of " + k + " groups page " + page + " " + what;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    var dynamo = context.dynamo();
    DynamoDbClient client = dynamo.client();
    SampleComments.createTable(client, TABLE);
    List<Map<String, AttributeValue>> comments = new ArrayList<>();
    Random r = new Random(15);
    for (Map<String, AttributeValue> c : SampleComments.generate(items(sizes), 300, 15)) {
      Map<String, AttributeValue> one = new HashMap<>(c);
      double u = r.nextDouble();
      int rating = 5;
      for (double acc = SHARES[0]; u > acc && rating > 1; acc += SHARES[5 - rating]) {
        rating--;
      }
      one.put("PK2", AttributeValue.fromS(group(rating)));
      one.put("SK", AttributeValue.fromS(c.get("SK").s().substring(0, 10))); // by day: ties in and across groups
      comments.add(one);
    }
    context.progress().printf("bench: loading %,d ratings-like comments ...%n", comments.size());
    SampleComments.load(client, TABLE, comments, 4, null);
    Path root = context.dir("ratings-index");
    build(client, dynamo.connection(), comments, root);

    int page = page(sizes);
    int size = Sizes.PAGE_SIZE;
    UnionCursor cursors = UnionCursor.withSecret("bench secret, not for production".getBytes(StandardCharsets.UTF_8));
    try (Index index = Indexes.open(root.toString())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, GSI, index);
      for (int k : new int[] {2, 5}) {
        List<String> groups = new ArrayList<>();
        for (int rating = 5; rating > 5 - k; rating--) {
          groups.add(group(rating));
        }
        List<KeyValue> keys = groups.stream().map(KeyValue::ofString).toList();
        UnionPage<Map<String, AttributeValue>> viaIndex = reader.read(keys, page, size, Order.ASC);
        SeedWalk walk = new SeedWalk(client, groups);
        List<Map<String, AttributeValue>> walked = walk.to(page, size);
        if (!viaIndex.items().equals(walked)) {
          throw new IllegalStateException("page " + page + " of the union of " + groups
              + " through the index differs from the per-group cursor walk");
        }
        String note = String.format("groups %s of %,d comments on DynamoDB Local (%,d in the union), %d a page,"
            + " ascending; walk: one Query of %d per group a page from each group's LastEvaluatedKey, merged",
            groups, comments.size(), viaIndex.count(), size, size);
        context.report(new Figure(name(k, page, "DynamoDB requests, index vs per-group cursor walk"),
            viaIndex.requests(), "requests", "per-group cursor walk from page 1", walk.requests, "requests", note));
        context.report(new Figure(name(k, page, "read capacity, index vs per-group cursor walk"),
            viaIndex.consumedReadCapacity(), "RCU", "per-group cursor walk from page 1", walk.capacity, "RCU",
            note + "; consumed capacity as DynamoDB Local reports it"));
        long reads = viaIndex.start().recordReads();
        context.report(new Figure(name(k, page, "index record reads to place the page, vs items the walk reads"), reads, "reads",
            "items the walk reads", walk.itemsRead, "items", note + "; a read is one record of one group read by rank (one group-file"
                + " record, one ZRANGE member, one row), each distinct rank once, to place the page: the selection's"
                + " and the start keys'; goal: under 40 a group (" + 40 * k + ")"));
        if (k == 5) {
          String signed = cursors.next(viaIndex.start());
          String seed = Base64.getUrlEncoder().withoutPadding()
              .encodeToString(walk.cursorJson().getBytes(StandardCharsets.UTF_8));
          context.report(new Figure("union cursor bytes, signed cursor vs per-group LastEvaluatedKey JSON",
              signed.length(), "bytes", "the walk's cursor: base64url of {group: LastEvaluatedKey}", seed.length(),
              "bytes", "after page " + page + " of the union of 5 groups; the signed cursor carries an 80-bit"
                  + " HMAC-SHA256 tag, the JSON none"));
        }
      }
    }
  }

  private static void build(DynamoDbClient client, io.pagemark.dynamo.DynamoConnection connection,
      List<Map<String, AttributeValue>> comments, Path root) throws Exception {
    KeySchema schema = KeySchema.describe(client, TABLE, GSI);
    BuildIndex buildIndex = BuildIndex.of(schema).withTieResolution(connection)
        .withSink(WriteIndexFiles.to(root.toString())).withKeepBuilds(1);
    LoadedItemsBuild.run(schema, comments, buildIndex.withBuild(buildIndex.buildId(), System.currentTimeMillis()),
        "ratings");
  }

  /**
   * The second seed's way through a union: each page, one Query of a page's size per group from that group's own
   * cursor, a merge by sort key then group key, the first page-size items kept, and each group's cursor moved to the
   * last of its items that were kept (the rest are read again next page).
   */
  static final class SeedWalk {
    private final DynamoDbClient client;
    private final List<String> groups;
    private final Map<String, Map<String, AttributeValue>> cursors = new LinkedHashMap<>();
    long requests;
    double capacity;
    long itemsRead;

    SeedWalk(DynamoDbClient client, List<String> groups) {
      this.client = client;
      this.groups = groups;
    }

    List<Map<String, AttributeValue>> to(int page, int size) {
      List<Map<String, AttributeValue>> kept = List.of();
      for (int n = 1; n <= page; n++) {
        kept = next(size);
      }
      return kept;
    }

    private List<Map<String, AttributeValue>> next(int size) {
      List<Map<String, AttributeValue>> all = new ArrayList<>();
      for (String g : groups) {
        QueryRequest.Builder b = QueryRequest.builder().tableName(TABLE).indexName(GSI)
            .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(g)))
            .limit(size).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        if (cursors.containsKey(g)) {
          b.exclusiveStartKey(cursors.get(g));
        }
        QueryResponse r = client.query(b.build());
        requests++;
        if (r.consumedCapacity() != null && r.consumedCapacity().capacityUnits() != null) {
          capacity += r.consumedCapacity().capacityUnits();
        }
        itemsRead += r.items().size();
        all.addAll(r.items());
      }
      // a stable sort keeps each group's items in DynamoDB's order
      all.sort(Comparator.comparing((Map<String, AttributeValue> i) -> KeyValue.ofString(i.get("SK").s()))
          .thenComparing(i -> KeyValue.ofString(i.get("PK2").s())));
      List<Map<String, AttributeValue>> kept = all.subList(0, Math.min(size, all.size()));
      for (Map<String, AttributeValue> item : kept) {
        cursors.put(item.get("PK2").s(), Map.of("PK", item.get("PK"), "SK", item.get("SK"), "PK2", item.get("PK2")));
      }
      return new ArrayList<>(kept);
    }

    /** The cursor the seed hands a client: every group's LastEvaluatedKey, in DynamoDB JSON. */
    String cursorJson() {
      StringBuilder b = new StringBuilder("{");
      cursors.forEach((g, key) -> {
        b.append(b.length() > 1 ? "," : "").append(io.pagemark.key.Json.quote(g)).append(":{");
        boolean first = true;
        for (String a : List.of("PK", "SK", "PK2")) {
          b.append(first ? "" : ",").append('"').append(a).append("\":{\"S\":")
              .append(io.pagemark.key.Json.quote(key.get(a).s())).append('}');
          first = false;
        }
        b.append('}');
      });
      return b.append('}').toString();
    }
  }
}
