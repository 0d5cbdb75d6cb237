package io.pagemark.transforms.source;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.transforms.TestPipelineExtension;
import io.pagemark.transforms.sink.file.CatchUpToWal;
import io.pagemark.wal.CatchUpWatermark;
import io.pagemark.wal.Wal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
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
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * {@link ReadTimeBuckets} and {@link CatchUpToWal} against DynamoDB Local: a bucket of about 3 MB (padding the bucket
 * index projects, so one Query page stops at 1 MB) read to its end, a bucket outside the range left alone, items the
 * grouping index would not hold skipped, keys it cannot hold as dead letters; the watermark moves only when every
 * write succeeded.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, TestPipelineExtension.class})
class ReadTimeBucketsTest {
  static final int BIG_BUCKET = 150;
  static final int SMALL_BUCKET = 10;
  static final String PADDING = "x".repeat(20_000);
  static final Instant FROM = Instant.parse("2026-11-23T12:00:00Z");
  static final Instant TO = Instant.parse("2026-11-23T12:20:00Z");

  DynamoConnection dynamo;
  KeySchema schema;
  String table;
  final List<IndexChange> expected = new ArrayList<>();

  @BeforeAll
  void table(DynamoDbLocal local) throws Exception {
    dynamo = local.connection();
    table = "buckets-" + UUID.randomUUID();
    schema = new KeySchema(table, "byG", "G", io.pagemark.key.KeyType.S,
        List.of(new KeyAttribute("SK", io.pagemark.key.KeyType.S, KeyAttribute.INDEX_SORT_KEY),
            new KeyAttribute("PK", io.pagemark.key.KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
        "PK", null);
    Version version = new Version(TO.toEpochMilli() * 1000, "");
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int i = 0; i < BIG_BUCKET + SMALL_BUCKET; i++) {
      String bucket = i < BIG_BUCKET ? "202611231200" : "202611231215";
      String group = i % 10 == 0 ? "a/b/../c" : "g" + (i % 7);
      String sortKey = "s\uD83D\uDE00" + (i % 20);
      items.add(item("p" + i, bucket, group, AttributeValue.fromS(sortKey)));
      expected.add(new IndexChange(KeyValue.ofString(group), List.of(KeyValue.ofString("p" + i)), version, null,
          List.of(KeyValue.ofString(sortKey), KeyValue.ofString("p" + i))));
    }
    for (int i = 0; i < 5; i++) {
      items.add(item("before" + i, "202611231145", "g1", AttributeValue.fromS("s"))); // not in the range
      items.add(item("after" + i, "202611231230", "g1", AttributeValue.fromS("s")));
    }
    items.add(item("nogroup", "202611231200", null, AttributeValue.fromS("s")));
    items.add(item("nosort", "202611231215", "g1", null));
    items.add(item("number", "202611231215", "g1", AttributeValue.fromN("7")));
    try (DynamoDbClient c = dynamo.client()) {
      c.createTable(b -> b.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
          .attributeDefinitions(def("PK"), def("bucket"), def("ts"))
          .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build())
          .globalSecondaryIndexes(GlobalSecondaryIndex.builder().indexName("byBucket")
              .keySchema(KeySchemaElement.builder().attributeName("bucket").keyType(KeyType.HASH).build(),
                  KeySchemaElement.builder().attributeName("ts").keyType(KeyType.RANGE).build())
              .projection(Projection.builder().projectionType(ProjectionType.ALL).build()).build()));
      for (int from = 0; from < items.size(); from += 25) {
        List<WriteRequest> batch = new ArrayList<>();
        for (Map<String, AttributeValue> item : items.subList(from, Math.min(items.size(), from + 25))) {
          batch.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
        }
        Map<String, List<WriteRequest>> left = Map.of(table, batch);
        while (!left.isEmpty()) {
          Map<String, List<WriteRequest>> request = left;
          left = c.batchWriteItem(b -> b.requestItems(request)).unprocessedItems();
        }
      }
    }
  }

  private static AttributeDefinition def(String name) {
    return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
  }

  static Map<String, AttributeValue> item(String pk, String bucket, String group, AttributeValue sortKey) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put("PK", AttributeValue.fromS(pk));
    item.put("bucket", AttributeValue.fromS(bucket));
    item.put("ts", AttributeValue.fromS(bucket + "#" + pk));
    item.put("pad", AttributeValue.fromS(PADDING));
    if (group != null) {
      item.put("G", AttributeValue.fromS(group));
    }
    if (sortKey != null) {
      item.put("SK", sortKey);
    }
    return item;
  }

  private ReadTimeBuckets read() {
    return ReadTimeBuckets.of(dynamo, schema).withBucketIndex("byBucket", "bucket", io.pagemark.key.KeyType.S)
        .between(FROM, TO);
  }

  @Test
  void everyItemOfTheBucketsInRangeBecomesAnUpsertFollowingLastEvaluatedKey(TestPipeline p) {
    PCollectionTuple read = p.apply(read());
    PAssert.that(read.get(ReadTimeBuckets.CHANGES)).containsInAnyOrder(expected);
    PAssert.that(read.get(ReadTimeBuckets.DEAD_LETTERS)).satisfies(lines -> {
      List<String> all = new ArrayList<>();
      lines.forEach(all::add);
      assertThat(all.toString(), all.size(), is(1));
      assertThat(all.get(0), containsString("attribute SK is of type N, the index expects S"));
      assertThat(all.get(0), containsString("number"));
      return null;
    });
    PipelineResult r = p.run();
    r.waitUntilFinish();
    assertThat(counter(r, "bucketsRead"), is(2L));
    assertThat("the 3 MB bucket needs several 1 MB pages", counter(r, "queryPages"), greaterThanOrEqualTo(4L));
    assertThat(counter(r, "itemsRead"), is((long) BIG_BUCKET + SMALL_BUCKET + 3));
    assertThat(counter(r, "skippedNotInIndex"), is(2L));
    assertThat(counter(r, ReadTimeBuckets.READ_CAPACITY_MILLI), greaterThanOrEqualTo(1000L));
  }

  @Test
  void theWatermarkMovesOnlyWhenEveryChangeAndDeadLetterIsWritten(TestPipeline p, @TempDir Path dir)
      throws Exception {
    Path ok = dir.resolve("ok");
    p.apply(read()).apply(CatchUpToWal.of(schema).withOutput(ok.toString()).withWatermark(TO));
    p.run().waitUntilFinish();
    assertThat(new CatchUpWatermark(ok).read().orElseThrow(), is(TO));
    assertThat(new Wal(ok).pendingGroupDirs().size(), is(8));
    try (var files = Files.list(new Wal(ok).deadLetterDir())) {
      assertThat(files.count(), is(1L));
    }

    // dead letters cannot be written (a file where their folder goes): the run fails, the watermark stays
    Path broken = dir.resolve("broken");
    Files.createDirectories(new Wal(broken).dir());
    Files.writeString(new Wal(broken).deadLetterDir(), "not a folder");
    TestPipeline again = TestPipeline.create();
    again.apply(read()).apply(CatchUpToWal.of(schema).withOutput(broken.toString()).withWatermark(TO));
    assertThrows(RuntimeException.class, () -> again.run().waitUntilFinish());
    assertThat(new CatchUpWatermark(broken).read().isPresent(), is(false));
  }

  private static long counter(PipelineResult r, String name) {
    long sum = 0;
    for (MetricResult<Long> c : r.metrics().queryMetrics(MetricsFilter.builder()
        .addNameFilter(MetricNameFilter.named(ReadTimeBuckets.METRICS, name)).build()).getCounters()) {
      sum += c.getAttempted();
    }
    return sum;
  }
}
