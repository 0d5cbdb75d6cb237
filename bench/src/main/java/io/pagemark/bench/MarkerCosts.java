package io.pagemark.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.commit.markers.GroupMarkers;
import io.pagemark.commit.markers.MarkerChanges;
import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.server.resp.RespServer;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.sink.file.WriteIndexFiles;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Page markers inside DynamoDB (docs/markers.md): what a page costs to read (the STATS read, the marker Query and the
 * page's Query) against the file index (one Query) and DynamoDB's cursor walk to the page, and what one change costs
 * the markers at the newest end, in the middle and at the oldest end of one group (10,000 items; 1,000 in quick mode):
 * transactional item writes against the user's own write (DynamoDB Local reports less write capacity for
 * transactions than DynamoDB bills, so the figure counts writes and the note gives both). Requests and capacity are counted for every client of the JVM by
 * {@link CapacityMeter}, as DynamoDB Local reports capacity. Pages read through both indexes must equal, or the run
 * fails.
 */
final class MarkerCosts implements Bench {
  static final String TABLE = "markerComments";
  static final String GSI = SampleComments.GSI;
  static final String GROUP = "SKU-00000";
  static final int SIZE = Sizes.PAGE_SIZE;

  @Override
  public String id() {
    return "markers";
  }

  static int items(Sizes sizes) {
    return sizes.mode().equals("quick") ? 1_000 : 10_000;
  }

  static String readName(String what) {
    return "markers: deep page, " + what;
  }

  static String changeName(String where, Sizes sizes) {
    return String.format("markers: item writes of one change at the %s of a %,d-item group, vs the item's own"
        + " write", where, items(sizes));
  }

  @Override
  public List<String> figures(Sizes sizes) {
    List<String> names = new ArrayList<>(List.of(
        readName("DynamoDB requests, markers vs file index"),
        readName("read capacity, markers vs file index"),
        readName("read capacity, markers vs cursor walk"),
        readName("DynamoDB requests of its start through pagemark resp (ZREVRANGE key r r) vs the library's")));
    for (String where : List.of("newest end", "middle", "oldest end")) {
      names.add(changeName(where, sizes));
    }
    return names;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    var dynamo = context.dynamo();
    DynamoDbClient client = dynamo.client();
    SampleComments.createTable(client, TABLE);
    List<Map<String, AttributeValue>> comments = new ArrayList<>();
    int n = items(sizes);
    for (Map<String, AttributeValue> c : SampleComments.generate(n, 1, 21)) {
      Map<String, AttributeValue> one = new HashMap<>(c);
      one.put("PK2", AttributeValue.fromS(GROUP));
      comments.add(one);
    }
    context.progress().printf("bench: loading %,d comments of one product ...%n", n);
    SampleComments.load(client, TABLE, comments, 4, null);
    KeySchema schema = KeySchema.describe(client, TABLE, GSI);
    Path root = context.dir("marker-comments-index");
    buildFiles(schema, dynamo.connection(), comments, root);
    MarkerSpec where = new MarkerSpec(TABLE, GSI + "-markers", null, dynamo.connection());
    MarkerConfig config = MarkerTables.prepare(client, where, schema, MarkerConfig.DEFAULT_MARKER_ATTRIBUTE, SIZE,
        true, "bench");
    new GroupMarkers(client, config, where.statsTable()).rewrite(KeyValue.ofString(GROUP));

    long page = (n / SIZE) * 3 / 4; // a deep page, three quarters in
    String note = String.format("page %,d of %d, descending, of a %,d-item group on DynamoDB Local", page, SIZE, n);
    try (Index markers = Indexes.open(where + "?endpoint=" + dynamo.endpoint());
        Index files = Indexes.open(root.toString())) {
      CapacityMeter.start();
      ItemPage<Map<String, AttributeValue>> viaMarkers =
          PageReader.of(client, TABLE, GSI, markers).read(GROUP, page, SIZE, Order.DESC);
      CapacityMeter.Reading m = CapacityMeter.stop();
      CapacityMeter.start();
      ItemPage<Map<String, AttributeValue>> viaFiles =
          PageReader.of(client, TABLE, GSI, files).read(GROUP, page, SIZE, Order.DESC);
      CapacityMeter.Reading f = CapacityMeter.stop();
      CapacityMeter.start();
      List<Map<String, AttributeValue>> walked = walk(client, page);
      CapacityMeter.Reading w = CapacityMeter.stop();
      if (!viaMarkers.items().equals(viaFiles.items()) || !viaMarkers.items().equals(walked)) {
        throw new IllegalStateException("page " + page + " through the markers, the file index and the walk differ");
      }
      context.report(new Figure(readName("DynamoDB requests, markers vs file index"), m.requests(), "requests",
          "file index", f.requests(), "requests", note + "; markers: STATS GetItem, marker Query, page Query"));
      context.report(new Figure(readName("read capacity, markers vs file index"), m.readCapacity(), "RCU",
          "file index", f.readCapacity(), "RCU", note + "; consumed capacity as DynamoDB Local reports it"));
      context.report(new Figure(readName("read capacity, markers vs cursor walk"), m.readCapacity(), "RCU",
          "cursor walk from page 1", w.readCapacity(), "RCU", note + "; the walk: " + page + " Queries of " + SIZE));
      viaResp(context, client, markers, where + "?endpoint=" + dynamo.endpoint(), page, walked, note);
    }

    MarkerChanges changes = new MarkerChanges(client, config, where.statsTable());
    List<Map<String, AttributeValue>> ascending = new ArrayList<>();
    client.queryPaginator(b -> b.tableName(TABLE).indexName(GSI).keyConditionExpression("PK2 = :g")
        .expressionAttributeValues(Map.of(":g", AttributeValue.fromS(GROUP)))).items().forEach(ascending::add);
    Map<String, AttributeValue> newest = new HashMap<>(ascending.get(ascending.size() - 1));
    newest.put("SK", AttributeValue.fromS(newest.get("SK").s() + "~newer"));
    change(context, sizes, client, schema, changes, "newest end", null, newest);
    change(context, sizes, client, schema, changes, "middle", ascending.get(ascending.size() / 2), null);
    change(context, sizes, client, schema, changes, "oldest end", ascending.get(0), null);
  }

  /**
   * The page's start through {@code pagemark resp} serving the markers (in this JVM, so its requests are counted):
   * {@code ZREVRANGE key r r} names the item before the page, against the library's page start; a Query from that
   * item must read the page the walk read.
   */
  private static void viaResp(Context context, DynamoDbClient client, Index markers, String spec, long page,
      List<Map<String, AttributeValue>> walked, String note) throws Exception {
    CapacityMeter.start();
    try (GroupPages g = markers.group(GROUP)) {
      g.pageStart(page, SIZE, Order.DESC);
    }
    CapacityMeter.Reading library = CapacityMeter.stop();
    long rank = (page - 1) * SIZE - 1;
    String member;
    try (RespServer server = RespServer.start(RespServer.Options.of(spec).withPort(0).withThreads(1));
        Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(60_000);
      String r = Long.toString(rank);
      String request = "*4\r\n$9\r\nZREVRANGE\r\n$" + GROUP.length() + "\r\n" + GROUP + "\r\n$" + r.length()
          + "\r\n" + r + "\r\n$" + r.length() + "\r\n" + r + "\r\n";
      CapacityMeter.start();
      socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String header = in.readLine();
      if (!"*1".equals(header)) {
        throw new IllegalStateException("pagemark resp answered " + header + " to ZREVRANGE " + GROUP + " " + r);
      }
      in.readLine(); // the member's length
      member = in.readLine();
    }
    CapacityMeter.Reading resp = CapacityMeter.stop();
    Map<String, AttributeValue> from = new HashMap<>();
    new ObjectMapper().readTree(member).fields().forEachRemaining(e -> {
      String type = e.getValue().fieldNames().next();
      String value = e.getValue().get(type).asText();
      from.put(e.getKey(), type.equals("N") ? AttributeValue.fromN(value) : AttributeValue.fromS(value));
    });
    List<Map<String, AttributeValue>> items = client.query(b -> b.tableName(TABLE).indexName(GSI)
        .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(GROUP)))
        .scanIndexForward(false).limit(SIZE).exclusiveStartKey(from)).items();
    if (!items.equals(walked)) {
      throw new IllegalStateException("the page from pagemark resp's ZREVRANGE " + GROUP + " " + rank + " " + rank
          + " is not the walk's page " + page);
    }
    context.report(new Figure(readName("DynamoDB requests of its start through pagemark resp (ZREVRANGE key r r)"
        + " vs the library's"), resp.requests(), "requests", "the library's page start (GroupPages.pageStart)",
        library.requests(), "requests", note + "; resp: STATS GetItem, marker Query, and a GSI Query from the"
            + " marker to the item before the page (" + String.format("%.1f", resp.readCapacity()) + " RCU, the"
            + " library " + String.format("%.1f", library.readCapacity()) + " RCU, which leaves that last step to"
            + " the page's own Query)"));
  }

  /** Makes one change as a user would, then keeps the markers current; reports both writes' capacity. */
  private static void change(Context context, Sizes sizes, DynamoDbClient client, KeySchema schema,
      MarkerChanges changes, String where, Map<String, AttributeValue> removed, Map<String, AttributeValue> added) {
    Map<String, AttributeValue> any = added != null ? added : removed;
    CapacityMeter.start();
    if (added != null) {
      client.putItem(b -> b.tableName(TABLE).item(added));
    } else {
      client.deleteItem(b -> b.tableName(TABLE).key(Map.of("PK", removed.get("PK"), "SK", removed.get("SK"))));
    }
    CapacityMeter.Reading own = CapacityMeter.stop();
    IndexChange c = new IndexChange(KeyValue.ofString(GROUP),
        List.of(KeyValue.ofString(any.get("PK").s()), KeyValue.ofString(any.get("SK").s())),
        new Version(System.currentTimeMillis() * 1000, "1"), removed == null ? null : entry(schema, removed),
        added == null ? null : entry(schema, added));
    CapacityMeter.start();
    MarkerChanges.Outcome o = changes.apply(KeyValue.ofString(GROUP), List.of(c));
    CapacityMeter.Reading m = CapacityMeter.stop();
    context.report(new Figure(changeName(where, sizes), o.actions(), "transactional writes", "the item's own write",
        1, "write", String.format("%d transaction(s), at most %d actions each; DynamoDB bills a transactional write 2"
            + " WCU per KB of the item, so at least %d WCU (DynamoDB Local reported %.1f WCU, and %.1f WCU for the"
            + " item's own write); the markers also read %.1f RCU (%s)", o.transactions(), MarkerChanges.MAX_ACTIONS,
            2 * o.actions(), m.writeCapacity(), own.writeCapacity(), m.readCapacity(),
            o.newest() ? "the group's two newest items and its STATS item" : "the whole group, keys only, both ways")));
  }

  private static List<KeyValue> entry(KeySchema schema, Map<String, AttributeValue> item) {
    IndexEntry e = ItemKeys.extract(schema, item).entry();
    return e.keys();
  }

  /** DynamoDB's own way to the page: one Query of a page after another, from each LastEvaluatedKey. */
  private static List<Map<String, AttributeValue>> walk(DynamoDbClient client, long page) {
    Map<String, AttributeValue> from = null;
    List<Map<String, AttributeValue>> items = List.of();
    for (long p = 1; p <= page; p++) {
      QueryRequest.Builder b = QueryRequest.builder().tableName(TABLE).indexName(GSI)
          .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(GROUP)))
          .scanIndexForward(false).limit(SIZE);
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(b.build());
      items = r.items();
      from = r.lastEvaluatedKey();
    }
    return items;
  }

  private static void buildFiles(KeySchema schema, io.pagemark.dynamo.DynamoConnection connection,
      List<Map<String, AttributeValue>> comments, Path root) throws Exception {
    BuildIndex buildIndex = BuildIndex.of(schema).withTieResolution(connection)
        .withSink(WriteIndexFiles.to(root.toString())).withKeepBuilds(1);
    LoadedItemsBuild.run(schema, comments, buildIndex.withBuild(buildIndex.buildId(), System.currentTimeMillis()),
        "comments");
  }
}
