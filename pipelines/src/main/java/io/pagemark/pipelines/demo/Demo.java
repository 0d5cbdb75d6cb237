package io.pagemark.pipelines.demo;

import io.pagemark.pipelines.backfill.BackfillCommand;
import io.pagemark.pipelines.backfill.BackfillOptions;
import io.pagemark.testing.DynamoDbLocal;

import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.LookupCommand;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.BuildInfo;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.transforms.Backfill;
import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * {@code pagemark demo}: starts DynamoDB Local in its own process, loads sample comments, builds the index on the
 * DirectRunner, prints its summary and a few lookups with the items of one page (checked against DynamoDB's own
 * cursor walk), and stops everything it started.
 */
@Command(
    name = "demo",
    description = "Starts DynamoDB Local (its own JVM, in memory), loads sample comments, builds the index on the"
        + " DirectRunner, prints a few lookups and one page read with one Query, checked against DynamoDB's own walk"
        + " with LastEvaluatedKey, and stops what it started.")
public final class Demo implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--items", paramLabel = "N", defaultValue = "50000",
      description = "Comments to load, 1 to 10000000. Default: ${DEFAULT-VALUE}.")
  long itemCount;

  @Option(names = "--products", paramLabel = "N", defaultValue = "300",
      description = "Products (groups) they comment on, 6 to 1000000. Default: ${DEFAULT-VALUE}.")
  long productCount;

  @Option(names = "--pageSize", paramLabel = "S", defaultValue = "20",
      description = "1 to 1000. Default: ${DEFAULT-VALUE}.")
  long pageSizeOption;

  @Option(names = "--page", paramLabel = "N", defaultValue = "292",
      description = "The page to read (the last one if the group has fewer). Default: ${DEFAULT-VALUE}.")
  long pageOption;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "42",
      description = "Seed of the sample data. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--output", paramLabel = "DIR", defaultValue = ".pagemark/demo-index",
      description = "Where the index is written (and left). Default: ${DEFAULT-VALUE}.")
  Path output;

  @Option(names = "--serve",
      description = "After the demo, keep DynamoDB Local running and serve the index over HTTP (pagemark serve)"
          + " until Ctrl-C; prints the URLs to open.")
  boolean serve;

  @Option(names = "--port", paramLabel = "P", defaultValue = "8080",
      description = "The port of --serve, on 127.0.0.1 (0: any free port). Default: ${DEFAULT-VALUE}.")
  long portOption;

  private final PrintStream out;
  private final PrintStream err;

  public Demo(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    int items = (int) Cli.inRange(spec, "--items", itemCount, 1, 10_000_000);
    int products = (int) Cli.inRange(spec, "--products", productCount, 6, 1_000_000);
    int pageSize = (int) Cli.inRange(spec, "--pageSize", pageSizeOption, 1, 1000);
    long page = Cli.inRange(spec, "--page", pageOption, 1, Long.MAX_VALUE);
    int port = (int) Cli.inRange(spec, "--port", portOption, 0, 65535);
    if (!serve && spec.commandLine().getParseResult().hasMatchedOption("--port")) {
      throw Cli.usageError(spec, "--port is the port of --serve: add --serve, or leave --port out");
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
                  "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=3",
                  // any region does for DynamoDB Local; without one, Beam's S3 file system asks the AWS region chain
                  // on Pipeline.create, whose instance-metadata lookups cost about a second off EC2
                  "--awsRegion=" + DynamoConnection.DEFAULT_REGION)
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
      try (Index index = Indexes.open(output.toString());
          GroupPages g = index.group(hot)) {
        long pages = g.pages(pageSize);
        long shown = Math.min(page, pages);
        out.printf("%nLookups for %s (pagemark lookup --index=%s --group=%s --page=1,%d,%d --pageSize=%d):%n", hot,
            output, hot, shown, pages, pageSize);
        for (long n : new long[] {1, shown, pages}) {
          out.println("  " + LookupCommand.toJson(g.pageStart(n, pageSize, Order.ASC)));
        }
        PageReader<Map<String, AttributeValue>> reader =
            PageReader.of(client, SampleComments.TABLE, SampleComments.GSI, index);
        ItemPage<Map<String, AttributeValue>> viaIndex = reader.read(hot, shown, pageSize, Order.ASC);
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
