package io.pagemark.transforms.source;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.testing.SharedDynamoDbLocal;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.BuildContext.ScanCounts;
import io.pagemark.transforms.TestPipelineExtension;
import io.pagemark.transforms.order.IndexEntryCoder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * {@link ScanSegmentFn} against DynamoDB Local: a table of about 8 MB, read in three segments, each of which takes
 * several 1 MB Scan pages. Every item is read once and becomes an entry, a skip (no group key, no sort key) or a dead
 * letter that says why.
 */
@ExtendWith(TestPipelineExtension.class)
class ScanSegmentFnTest {
  static final int SEGMENTS = 3;
  static final int ENTRIES = 380;
  static final int NO_GROUP_KEY = 13;
  static final int NO_SORT_KEY = 5;
  static final int WRONG_TYPE = 3;
  /** Padding that the projection leaves out but that counts toward each Scan page's 1 MB. */
  static final String PADDING = "x".repeat(20_000);

  static DynamoConnection dynamo;
  static KeySchema schema;
  static final List<IndexEntry> expected = new ArrayList<>();

  @BeforeAll
  static void table() throws Exception {
    dynamo = SharedDynamoDbLocal.get().connection();
    String table = "scan-" + UUID.randomUUID();
    schema = new KeySchema(table, "byG", "G", io.pagemark.key.KeyType.S,
        List.of(new KeyAttribute("SK", io.pagemark.key.KeyType.S, KeyAttribute.INDEX_SORT_KEY),
            new KeyAttribute("PK", io.pagemark.key.KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)),
        "PK", null);
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int i = 0; i < ENTRIES; i++) {
      String group = i % 10 == 0 ? "a/b/../c" : "g" + (i % 7);
      String sortKey = "s\uD83D\uDE00" + (i % 50);
      items.add(item("p" + i, group, AttributeValue.fromS(sortKey)));
      expected.add(new IndexEntry(KeyValue.ofString(group),
          List.of(KeyValue.ofString(sortKey), KeyValue.ofString("p" + i))));
    }
    for (int i = 0; i < NO_GROUP_KEY; i++) {
      items.add(item("nogroup" + i, null, AttributeValue.fromS("s")));
    }
    for (int i = 0; i < NO_SORT_KEY; i++) {
      items.add(item("nosort" + i, "g1", null));
    }
    for (int i = 0; i < WRONG_TYPE; i++) {
      items.add(item("number" + i, "g1", AttributeValue.fromN(Integer.toString(i))));
    }
    try (DynamoDbClient c = dynamo.client()) {
      c.createTable(b -> b.tableName(table).billingMode(BillingMode.PAY_PER_REQUEST)
          .attributeDefinitions(AttributeDefinition.builder().attributeName("PK")
              .attributeType(ScalarAttributeType.S).build())
          .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build()));
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

  static Map<String, AttributeValue> item(String pk, String group, AttributeValue sortKey) {
    Map<String, AttributeValue> item = new HashMap<>();
    item.put("PK", AttributeValue.fromS(pk));
    if (group != null) {
      item.put("G", AttributeValue.fromS(group));
    }
    if (sortKey != null) {
      item.put("SK", sortKey);
    }
    item.put("padding", AttributeValue.fromS(PADDING));
    return item;
  }

  @Test
  void everyItemIsReadOnceAcrossSeveralPagesPerSegmentAndAccountedFor(TestPipeline p) {
    PCollectionTuple scanned =
        p.apply(Create.of(0, 1, 2))
            .apply(ParDo.of(new ScanSegmentFn(dynamo, schema, SEGMENTS))
                .withOutputTags(ScanSegmentFn.ENTRIES,
                    TupleTagList.of(ScanSegmentFn.DEAD_LETTERS).and(ScanSegmentFn.TALLIES)));
    PCollection<List<IndexEntry>> pages = scanned.get(ScanSegmentFn.ENTRIES).setCoder(ListCoder.of(IndexEntryCoder.of()));
    PAssert.that(pages.apply("Entries of the pages", Flatten.iterables())).containsInAnyOrder(expected);
    PAssert.that(pages).satisfies(lists -> {
      int n = 0;
      for (List<IndexEntry> page : lists) {
        assertThat("a page's list holds entries", page.isEmpty(), is(false));
        n++;
      }
      assertThat("a list per Scan page, not per segment", n, greaterThan(SEGMENTS));
      return null;
    });
    PAssert.that(scanned.get(ScanSegmentFn.DEAD_LETTERS).setCoder(StringUtf8Coder.of())).satisfies(lines -> {
      List<String> all = new ArrayList<>();
      lines.forEach(all::add);
      all.sort(null);
      assertThat(all.size(), is(WRONG_TYPE));
      for (int i = 0; i < WRONG_TYPE; i++) {
        assertThat(all.get(i), is("{\"reason\":\"attribute SK is of type N, the index expects S\",\"key\":"
            + "{\"PK\":{\"S\":\"number" + i + "\"}},\"attributes\":{\"G\":{\"S\":\"g1\"},\"SK\":{\"N\":\"" + i
            + "\"},\"PK\":{\"S\":\"number" + i + "\"}}}"));
      }
      return null;
    });
    PAssert.that(scanned.get(ScanSegmentFn.TALLIES)
            .setCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
            .apply(Sum.longsPerKey()))
        .containsInAnyOrder(
            KV.of(ScanCounts.ITEMS_SCANNED, (long) (ENTRIES + NO_GROUP_KEY + NO_SORT_KEY + WRONG_TYPE)),
            KV.of(ScanCounts.SKIPPED_NO_GROUP_KEY, (long) NO_GROUP_KEY),
            KV.of(ScanCounts.SKIPPED_NO_SORT_KEY, (long) NO_SORT_KEY));
    PipelineResult result = p.run();
    result.waitUntilFinish();

    long bytes = (long) (ENTRIES + NO_GROUP_KEY + NO_SORT_KEY + WRONG_TYPE) * PADDING.length();
    assertThat("pages of at most 1 MB", counter(result, "scanPages"), greaterThanOrEqualTo(bytes / (1 << 20) + 1));
    assertThat(counter(result, "itemsRead"), is((long) (ENTRIES + NO_GROUP_KEY + NO_SORT_KEY + WRONG_TYPE)));
    assertThat(counter(result, "skippedSparse"), is((long) (NO_GROUP_KEY + NO_SORT_KEY)));
    assertThat(counter(result, "deadLetters"), is((long) WRONG_TYPE));
  }

  static long counter(PipelineResult result, String name) {
    long total = 0;
    for (MetricResult<Long> c : result.metrics().queryMetrics(MetricsFilter.builder()
        .addNameFilter(MetricNameFilter.named(Backfill.METRICS, name)).build()).getCounters()) {
      total += c.getAttempted();
    }
    return total;
  }
}
