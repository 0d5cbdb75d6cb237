package io.pagemark.transforms.source;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.BuildContext.ScanCounts;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.Json;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * Scans one segment of a parallel Scan to its end, following {@code LastEvaluatedKey} page after page (a page stops
 * at 1 MB), and turns each item into an index entry, a skip or a dead letter. Only the key attributes are projected.
 * A page's entries are emitted as one list ({@link #ENTRIES}, for {@code BuildIndex.fromBatches()}): a runner pays for
 * every element it hands the next step.
 */
public final class ScanSegmentFn extends DoFn<Integer, List<IndexEntry>> {
  /** Each Scan page's entries, in the page's order (a page without entries emits none). */
  public static final TupleTag<List<IndexEntry>> ENTRIES = new TupleTag<>("entries") {};
  public static final TupleTag<String> DEAD_LETTERS = new TupleTag<>("deadLetters") {};
  public static final TupleTag<KV<String, Long>> TALLIES = new TupleTag<>("tallies") {};

  private final DynamoConnection connection;
  private final KeySchema schema;
  private final int totalSegments;
  private final Counter itemsRead = Metrics.counter(Backfill.METRICS, "itemsRead");
  private final Counter pagesRead = Metrics.counter(Backfill.METRICS, "scanPages");
  private final Counter retries = Metrics.counter(Backfill.METRICS, "throttledRetries");
  private final Counter deadLetters = Metrics.counter(Backfill.METRICS, "deadLetters");
  private final Counter skipped = Metrics.counter(Backfill.METRICS, "skippedSparse");
  private transient DynamoDbClient client;

  public ScanSegmentFn(DynamoConnection connection, KeySchema schema, int totalSegments) {
    this.connection = connection;
    this.schema = schema;
    this.totalSegments = totalSegments;
  }

  @Setup
  public void setup() {
    client = connection.client(retries::inc);
  }

  @ProcessElement
  public void process(@Element Integer segment, MultiOutputReceiver out) {
    List<String> names = new ArrayList<>(new LinkedHashSet<>(projected()));
    Map<String, String> aliases = new HashMap<>();
    List<String> projection = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      aliases.put("#k" + i, names.get(i));
      projection.add("#k" + i);
    }
    long scanned = 0;
    long noGroup = 0;
    long noSort = 0;
    Map<String, AttributeValue> start = null;
    do {
      ScanRequest.Builder req =
          ScanRequest.builder()
              .tableName(schema.table())
              .segment(segment)
              .totalSegments(totalSegments)
              .projectionExpression(String.join(",", projection))
              .expressionAttributeNames(aliases);
      if (start != null) {
        req.exclusiveStartKey(start);
      }
      ScanResponse page = client.scan(req.build());
      pagesRead.inc();
      List<IndexEntry> entries = new ArrayList<>(page.items().size());
      for (Map<String, AttributeValue> item : page.items()) {
        scanned++;
        ItemKeys.Extraction x = ItemKeys.extract(schema, item);
        if (x.isEntry()) {
          entries.add(x.entry());
        } else if (x.skip() == ItemKeys.Skip.NO_GROUP_KEY) {
          noGroup++;
          skipped.inc();
        } else if (x.skip() == ItemKeys.Skip.NO_SORT_KEY) {
          noSort++;
          skipped.inc();
        } else {
          deadLetters.inc();
          ObjectNode line = Json.object().put("reason", x.rejection());
          line.set("key", ItemKeys.describeJson(item, schema.primaryKeyNames()));
          line.set("attributes", ItemKeys.describeJson(item, names));
          out.get(DEAD_LETTERS).output(Json.write(line));
        }
      }
      if (!entries.isEmpty()) {
        out.get(ENTRIES).output(entries);
      }
      itemsRead.inc(page.items().size());
      start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
    } while (start != null);
    out.get(TALLIES).output(KV.of(ScanCounts.ITEMS_SCANNED, scanned));
    out.get(TALLIES).output(KV.of(ScanCounts.SKIPPED_NO_GROUP_KEY, noGroup));
    out.get(TALLIES).output(KV.of(ScanCounts.SKIPPED_NO_SORT_KEY, noSort));
  }

  private List<String> projected() {
    List<String> names = new ArrayList<>();
    names.add(schema.groupAttribute());
    schema.storedAttributes().forEach(a -> names.add(a.name()));
    names.addAll(schema.primaryKeyNames());
    return names;
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
