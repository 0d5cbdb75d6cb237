package io.pagemark.pipelines.demo;

import io.pagemark.pipelines.backfill.BackfillCommand;
import io.pagemark.pipelines.backfill.BackfillOptions;
import io.pagemark.testing.DynamoDbLocal;

import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.LookupCommand;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.BuildInfo;
import io.pagemark.lookup.file.FileIndex;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageQuery;
import io.pagemark.lookup.PageStart;
import io.pagemark.transforms.Backfill;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * {@code pagemark demo}: starts DynamoDB Local in its own process, loads sample comments, builds the index on the
 * DirectRunner, prints its summary and a few lookups with the items of one page (checked against DynamoDB's own
 * cursor walk), and stops everything it started.
 */
public final class Demo {
  static final Set<String> OPTIONS = Set.of("items", "products", "output", "pageSize", "page", "seed", "port");

  static final String USAGE =
      "usage: pagemark demo [--items=50000] [--products=300] [--pageSize=20] [--page=292] [--seed=42]"
          + " [--output=.pagemark/demo-index] [--serve [--port=8080]]";

  private Demo() {}

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    int items;
    int products;
    int pageSize;
    long page;
    long seed;
    Path output;
    int port;
    // --serve: keep DynamoDB Local and pagemark serve running after the demo, until Ctrl-C or SIGTERM.
    boolean serve = argv.contains("--serve");
    argv = argv.stream().filter(a -> !a.equals("--serve")).toList();
    if (argv.contains("--help")) {
      out.println(USAGE);
      return ExitCode.OK;
    }
    try {
      Args a = Args.parse(argv, OPTIONS);
      items = (int) Args.number("items", a.get("items", "50000"), 1, 10_000_000);
      products = (int) Args.number("products", a.get("products", "300"), 6, 1_000_000);
      pageSize = (int) Args.number("pageSize", a.get("pageSize", "20"), 1, 1000);
      page = Args.number("page", a.get("page", "292"), 1, Long.MAX_VALUE);
      seed = Args.number("seed", a.get("seed", "42"), Long.MIN_VALUE, Long.MAX_VALUE);
      output = Path.of(a.get("output", ".pagemark/demo-index"));
      port = (int) Args.number("port", a.get("port", "8080"), 0, 65535);
    } catch (Args.UsageException e) {
      err.println("pagemark demo: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
    }
    long started = System.nanoTime();
    err.println("demo: starting DynamoDB Local (its own JVM, in memory) ...");
    try (DynamoDbLocal local = DynamoDbLocal.start();
        DynamoDbClient client = local.client()) {
      err.println("demo: DynamoDB Local is up at " + local.endpoint());
      SampleComments.createTable(client);
      err.printf("demo: table %s with GSI %s (PK2, SK); loading %,d comments over %,d products%n",
          SampleComments.TABLE, SampleComments.GSI, items, products);
      SampleComments.load(client, SampleComments.TABLE, SampleComments.generate(items, products, seed), 4, err);

      err.println("demo: building the index on the DirectRunner ...");
      BackfillOptions o =
          PipelineOptionsFactory.fromArgs(
                  "--table=" + SampleComments.TABLE, "--gsi=" + SampleComments.GSI, "--output=" + output,
                  "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=3")
              .as(BackfillOptions.class);
      Backfill backfill = BackfillCommand.configure(o);
      BuildInfo info = BackfillCommand.run(o, backfill, err);
      BuildInfo.Counts c = info.counts();
      out.printf("%nIndex %s (build %s)%n", output.toAbsolutePath(), info.buildId());
      out.printf("  %,d items scanned -> %,d entries in %,d groups; %,d skipped, %,d dead letters;"
          + " %,d runs of equal sort keys resolved against DynamoDB%n", c.itemsScanned(), c.entries(), c.groups(),
          c.skippedNoGroupKey() + c.skippedNoSortKey(), c.deadLetters(), c.tieRuns() - c.tieRunsUnresolved());
      printLargest(out, output.resolve("builds").resolve(info.buildId()).resolve("manifest.jsonl"), pageSize);

      String hot = SampleComments.hotProduct();
      try (FileIndex index = FileIndex.open(output);
          GroupPages g = index.group(hot)) {
        long pages = g.pages(pageSize);
        long shown = Math.min(page, pages);
        out.printf("%nLookups for %s (pagemark lookup --index=%s --group=%s --page=1,%d,%d --pageSize=%d):%n", hot,
            output, hot, shown, pages, pageSize);
        for (long n : new long[] {1, shown, pages}) {
          out.println("  " + LookupCommand.toJson(g.pageStart(n, pageSize, Order.ASC)));
        }
        PageStart start = g.pageStart(shown, pageSize, Order.ASC);
        PageQuery query = new PageQuery(client, SampleComments.TABLE, SampleComments.GSI, "PK2");
        PageQuery.Page viaIndex = query.fetch(start);
        out.printf("%nPage %d of %d of %s through the index: %d Query request(s), %.1f read capacity units%n",
            shown, pages, hot, viaIndex.requests(), viaIndex.consumedReadCapacity());
        for (Map<String, AttributeValue> item : viaIndex.items()) {
          out.println("  " + ItemKeys.describe(item, List.of("PK2", "SK", "PK", "author", "rating")));
        }
        Walk walk = walk(client, hot, pageSize, shown);
        out.printf("The same page by walking LastEvaluatedKey from page 1: %d Query requests, %.1f read capacity"
            + " units; items %s%n", walk.requests, walk.capacity,
            walk.items.equals(viaIndex.items()) ? "identical" : "DIFFERENT (this is a bug)");
        if (!walk.items.equals(viaIndex.items())) {
          return ExitCode.FAILURE;
        }
      }
      if (serve) {
        DemoServer.serve(local, output, hot, pageSize, port, out);
      }
    } catch (Exception e) {
      err.println("pagemark demo: failed: " + e);
      return ExitCode.FAILURE;
    }
    out.printf("%ndemo: done in %.1f s; DynamoDB Local stopped. Index left in %s%n",
        (System.nanoTime() - started) / 1e9, output);
    return ExitCode.OK;
  }

  private static void printLargest(PrintStream out, Path manifest, int pageSize) throws java.io.IOException {
    record Line(String group, long count) {}
    List<Line> lines = new ArrayList<>();
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    try (BufferedReader r = Files.newBufferedReader(manifest, StandardCharsets.UTF_8)) {
      for (String l; (l = r.readLine()) != null; ) {
        var node = json.readTree(l);
        lines.add(new Line(node.get("group").get("S").asText(), node.get("count").asLong()));
      }
    }
    lines.sort((a, b) -> Long.compare(b.count, a.count));
    out.println("  largest groups:");
    for (Line l : lines.subList(0, Math.min(5, lines.size()))) {
      out.printf("    %-12s %,7d entries  %,5d pages of %d%n", l.group, l.count, (l.count + pageSize - 1) / pageSize,
          pageSize);
    }
  }

  private record Walk(List<Map<String, AttributeValue>> items, int requests, double capacity) {}

  /** DynamoDB's own way to page n: query page after page from the start, following LastEvaluatedKey. */
  private static Walk walk(DynamoDbClient client, String group, int pageSize, long page) {
    Map<String, AttributeValue> from = null;
    int requests = 0;
    double capacity = 0;
    List<Map<String, AttributeValue>> items = List.of();
    for (long n = 1; n <= page; n++) {
      List<Map<String, AttributeValue>> got = new ArrayList<>();
      do {
        QueryRequest.Builder b = QueryRequest.builder().tableName(SampleComments.TABLE).indexName(SampleComments.GSI)
            .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(group)))
            .limit(pageSize - got.size()).returnConsumedCapacity("TOTAL");
        if (from != null) {
          b.exclusiveStartKey(from);
        }
        QueryResponse r = client.query(b.build());
        requests++;
        capacity += r.consumedCapacity() == null ? 0 : r.consumedCapacity().capacityUnits();
        got.addAll(r.items());
        from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      } while (from != null && got.size() < pageSize);
      items = got;
    }
    return new Walk(items, requests, capacity);
  }
}
