package io.pagemark.bench;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A backfill end to end (issue #17): the demo's {@code comments} table of {@link #items} items on a DynamoDB Local
 * of this benchmark's own, loaded with BatchWriteItem ({@link SampleComments#load}), then {@code pagemark backfill}
 * (Scan, build, equal sort keys resolved against the table, publish) on local Flink in a JVM of its own
 * ({@link BackfillJob}), and the backfill's Scan step alone in the same way ({@link ScanOnlyJob}): where the time
 * goes. Both against the floor for reading, a plain parallel Scan loop with the AWS SDK over the same segments with
 * as many threads as the pipeline's parallelism ({@link ScanLoop}), run before and after the pipelines (the faster
 * counts).
 */
final class BackfillEndToEnd implements Bench {
  static final int SEGMENTS = 8;
  static final int PARALLELISM = 2;

  static int items(Sizes sizes) {
    return sizes.mode().equals("quick") ? 20_000 : 1_000_000;
  }

  static String endToEndName(int items) {
    return String.format(Locale.ROOT, "backfill end to end from DynamoDB Local, %,d items, local Flink, vs a"
        + " parallel SDK Scan loop", items);
  }

  static String scanName(int items) {
    return String.format(Locale.ROOT, "backfill's Scan step alone, %,d items, local Flink, vs a parallel SDK Scan"
        + " loop", items);
  }

  @Override
  public String id() {
    return "backfill-e2e";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(endToEndName(items(sizes)), scanName(items(sizes)));
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    int n = items(sizes);
    Path dir = context.dir("backfill-e2e").toAbsolutePath();
    // A DynamoDB Local of its own: a million items would slow the shared one's other tables, and closing it frees
    // their memory.
    context.progress().println("bench: starting a DynamoDB Local for the backfill ...");
    try (DynamoDbLocal dynamo = DynamoDbLocal.start(); DynamoDbClient client = dynamo.client()) {
      SampleComments.createTable(client);
      double loadSeconds = load(client, n, context);
      KeySchema schema = KeySchema.describe(client, SampleComments.TABLE, SampleComments.GSI);

      ScanLoop.Result floorBefore = ScanLoop.run(dynamo.connection(), schema, SEGMENTS, PARALLELISM);
      check("the SDK Scan loop", floorBefore.items(), n);
      context.progress().printf("bench: SDK Scan loop: %,d items in %.1f s (%,.0f/s)%n", floorBefore.items(),
          floorBefore.seconds(), floorBefore.itemsPerSecond());

      List<String> flink = List.of("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=" + PARALLELISM);
      List<String> scanArgs = new ArrayList<>(List.of(dynamo.endpoint(), SampleComments.TABLE, SampleComments.GSI,
          Integer.toString(SEGMENTS)));
      scanArgs.addAll(flink);
      context.progress().printf("bench: the backfill's Scan step alone on local Flink ...%n");
      Map<String, String> scan = ChildJvm.run("2g", ScanOnlyJob.class, scanArgs, dir.resolve("scan-only.log"),
          context.progress());
      check("the Scan step", Long.parseLong(scan.get("items")), n);
      check("the Scan step's entries", Long.parseLong(scan.get("entries")), n);
      double scanSeconds = Double.parseDouble(scan.get("seconds"));
      context.progress().printf("bench: Scan step alone: %,d items in %.1f s%n", n, scanSeconds);

      List<String> backfillArgs = new ArrayList<>(List.of("--table=" + SampleComments.TABLE,
          "--gsi=" + SampleComments.GSI, "--output=" + dir.resolve("index"), "--dynamoEndpoint=" + dynamo.endpoint(),
          "--segments=" + SEGMENTS, "--deadLetterOutput=" + dir.resolve("dead-letters"), "--progressSeconds=10"));
      backfillArgs.addAll(flink);
      context.progress().printf("bench: pagemark backfill of %,d items on local Flink ...%n", n);
      Map<String, String> backfill = ChildJvm.run("4g", BackfillJob.class, backfillArgs,
          dir.resolve("backfill.log"), context.progress());
      check("the backfill", Long.parseLong(backfill.get("items")), n);
      check("the backfill's entries", Long.parseLong(backfill.get("entries")), n);
      double backfillSeconds = Double.parseDouble(backfill.get("seconds"));
      context.progress().printf("bench: backfill: %,d items in %.1f s%n", n, backfillSeconds);

      ScanLoop.Result floorAfter = ScanLoop.run(dynamo.connection(), schema, SEGMENTS, PARALLELISM);
      check("the SDK Scan loop", floorAfter.items(), n);
      context.progress().printf("bench: SDK Scan loop again: %,d items in %.1f s%n", floorAfter.items(),
          floorAfter.seconds());
      ScanLoop.Result floor = floorAfter.seconds() < floorBefore.seconds() ? floorAfter : floorBefore;

      String baseline = String.format(Locale.ROOT, "AWS SDK parallel Scan, %d segments on %d threads, same"
          + " projection, the faster of one run before and one after", SEGMENTS, PARALLELISM);
      String common = String.format(Locale.ROOT, "demo comments table (%,d products, one of ~14%%), loaded with"
          + " BatchWriteItem in %.0f s; %d segments, Flink [local] parallelism %d; SDK loop %.1f s before, %.1f s"
          + " after; Scan step alone %.1f s, backfill %.1f s (%s groups, %s runs of equal sort keys resolved"
          + " against the table), so the build after the scan took about %.1f s; pipeline run only, JVM start"
          + " excluded", products(n), loadSeconds, SEGMENTS, PARALLELISM, floorBefore.seconds(), floorAfter.seconds(),
          scanSeconds, backfillSeconds, backfill.get("groups"), backfill.get("tieRuns"),
          backfillSeconds - scanSeconds);
      context.report(new Figure(endToEndName(n), n / backfillSeconds, "items/s", baseline,
          floor.itemsPerSecond(), "items/s", common));
      context.report(new Figure(scanName(n), n / scanSeconds, "items/s", baseline, floor.itemsPerSecond(),
          "items/s", common));
    }
  }

  static int products(int items) {
    return Math.max(50, items / 200);
  }

  /** Generates and loads the table (4 writer threads); returns the seconds the load took. */
  private static double load(DynamoDbClient client, int n, Context context) throws InterruptedException {
    List<Map<String, AttributeValue>> comments = SampleComments.generate(n, products(n), 17);
    context.progress().printf("bench: loading %,d comments over %,d products into DynamoDB Local ...%n", n,
        products(n));
    long started = System.nanoTime();
    SampleComments.load(client, SampleComments.TABLE, comments, 4, null);
    double seconds = (System.nanoTime() - started) / 1e9;
    context.progress().printf("bench: loaded %,d items in %.0f s (%,.0f/s)%n", n, seconds, n / seconds);
    return seconds;
  }

  private static void check(String what, long got, long expected) {
    if (got != expected) {
      throw new IllegalStateException(what + " read " + got + " items of " + expected);
    }
  }
}
