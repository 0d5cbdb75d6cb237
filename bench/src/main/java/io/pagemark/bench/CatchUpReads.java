package io.pagemark.bench;

import io.pagemark.pipelines.Main;
import io.pagemark.transforms.source.TimeBuckets;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The read capacity of one {@code pagemark catch-up} run (the last 15 minutes since its watermark, plus its default 30
 * minutes of overlap) on a comments table holding days of quarter-hour buckets, against the strategy that fails as
 * the table grows: a Scan with a {@code FilterExpression} on time over the same table, which is charged for every item
 * it reads whatever the filter keeps. Both read capacities are DynamoDB Local's {@code ConsumedCapacity}, summed over
 * every page.
 */
final class CatchUpReads implements Bench {
  static final String NAME = "catch-up read capacity per run (45 min of buckets)";
  private static final Pattern CAPACITY = Pattern.compile("\\(([0-9.]+) read capacity units\\), ([0-9,]+) upserts");

  @Override
  public String id() {
    return "catch-up-reads";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(NAME);
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    boolean quick = sizes.mode().equals("quick");
    int days = quick ? 1 : 7;
    int perBucket = quick ? 20 : 30;
    String table = "catchupReads";
    TimeBuckets buckets = new TimeBuckets(15, "yyyyMMddHHmm");
    Instant now = Instant.now();
    Instant watermark = now.minus(Duration.ofMinutes(15));
    int items;
    try (DynamoDbClient c = context.dynamo().client()) {
      create(c, table);
      items = fill(c, table, buckets, now, days, perBucket);
    }
    context.progress().printf("bench: catch-up-reads: %,d comments in %,d buckets%n", items, days * 96);

    Path index = context.dir("catch-up-reads");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(List.of("catch-up", "--table=" + table, "--gsi=byPost", "--index=" + index,
        "--bucketIndex=byBucket", "--since=" + watermark, "--dynamoEndpoint=" + context.dynamo().endpoint()),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    String said = out.toString(StandardCharsets.UTF_8);
    Matcher m = CAPACITY.matcher(said);
    if (code != 0 || !m.find()) {
      throw new IllegalStateException("pagemark catch-up failed (" + code + "): " + said
          + err.toString(StandardCharsets.UTF_8));
    }
    double catchUp = Double.parseDouble(m.group(1));
    long upserts = Long.parseLong(m.group(2).replace(",", ""));

    // the baseline: everything stamped at or after the start of the first bucket the catch-up read
    String since = buckets.name(watermark.minus(Duration.ofMinutes(30)));
    double scan = 0;
    long matched = 0;
    try (DynamoDbClient c = context.dynamo().client()) {
      Map<String, AttributeValue> start = null;
      do {
        ScanRequest.Builder b = ScanRequest.builder().tableName(table).filterExpression("#bucket >= :since")
            .expressionAttributeNames(Map.of("#bucket", "bucket"))
            .expressionAttributeValues(Map.of(":since", AttributeValue.fromS(since)))
            .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        if (start != null) {
          b.exclusiveStartKey(start);
        }
        ScanResponse r = c.scan(b.build());
        scan += r.consumedCapacity().capacityUnits();
        matched += r.count();
        start = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      } while (start != null);
    }
    if (matched != upserts || catchUp <= 0) {
      throw new IllegalStateException("the catch-up read " + upserts + " items and " + catchUp + " read capacity"
          + " units; the Scan's filter kept " + matched + ": they must read the same items, with some capacity");
    }
    context.report(new Figure(NAME, catchUp, "RCU", "Scan with a FilterExpression on time, same items", scan, "RCU",
        String.format(Locale.ROOT, "%,d items in %d days of 15-minute buckets; both read the %,d items of the last"
            + " %d buckets; DynamoDB Local's ConsumedCapacity summed over every page", items, days, upserts,
            buckets.between(watermark.minus(Duration.ofMinutes(30)), now).size())));
  }

  private static void create(DynamoDbClient c, String table) {
    c.createTable(b -> b.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
        .attributeDefinitions(def("PK"), def("PK2"), def("SK2"), def("bucket"), def("ts"))
        .keySchema(key("PK", KeyType.HASH))
        .globalSecondaryIndexes(
            GlobalSecondaryIndex.builder().indexName("byPost").keySchema(key("PK2", KeyType.HASH),
                key("SK2", KeyType.RANGE)).projection(p -> p.projectionType(ProjectionType.ALL)).build(),
            GlobalSecondaryIndex.builder().indexName("byBucket").keySchema(key("bucket", KeyType.HASH),
                key("ts", KeyType.RANGE)).projection(Projection.builder().projectionType(ProjectionType.INCLUDE)
                    .nonKeyAttributes("PK2", "SK2").build()).build()));
  }

  /** {@code perBucket} comments of about 300 bytes in every quarter-hour of the last {@code days} days. */
  private static int fill(DynamoDbClient c, String table, TimeBuckets buckets, Instant now, int days, int perBucket) {
    Random r = new Random(22);
    List<WriteRequest> batch = new ArrayList<>();
    int n = 0;
    String body = "x".repeat(240);
    for (Instant b = buckets.start(now.minus(Duration.ofDays(days))); !b.isAfter(now); b = b.plusSeconds(900)) {
      for (int i = 0; i < perBucket; i++) {
        Instant at = b.plusMillis(r.nextInt(900_000));
        if (at.isAfter(now)) {
          continue;
        }
        batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(Map.of(
            "PK", AttributeValue.fromS(String.format("c-%07d", n++)),
            "PK2", AttributeValue.fromS("post-" + r.nextInt(500)),
            "SK2", AttributeValue.fromS(at.toString()),
            "bucket", AttributeValue.fromS(buckets.name(at)),
            "ts", AttributeValue.fromS(at + "#" + Long.toHexString(r.nextLong())),
            "body", AttributeValue.fromS(body))).build()).build());
        if (batch.size() == 25) {
          write(c, table, batch);
        }
      }
    }
    write(c, table, batch);
    return n;
  }

  private static void write(DynamoDbClient c, String table, List<WriteRequest> batch) {
    Map<String, List<WriteRequest>> pending = Map.of(table, List.copyOf(batch));
    batch.clear();
    while (!pending.get(table).isEmpty()) {
      Map<String, List<WriteRequest>> send = pending;
      var resp = c.batchWriteItem(b -> b.requestItems(send));
      pending = Map.of(table, resp.hasUnprocessedItems() && resp.unprocessedItems().containsKey(table)
          ? resp.unprocessedItems().get(table) : List.of());
    }
  }

  private static AttributeDefinition def(String name) {
    return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
  }

  private static KeySchemaElement key(String name, KeyType type) {
    return KeySchemaElement.builder().attributeName(name).keyType(type).build();
  }
}
