package io.pagemark.transforms.order;

import io.pagemark.order.DynamoTieOrder;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import io.pagemark.transforms.Backfill;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Orders one part of a group as DynamoDB does: sorts its entries by sort key, learns DynamoDB's order of each run of
 * equal sort keys ({@link DynamoTieOrder}), and emits the part's records. Holds one part in memory, never a group.
 */
final class OrderPartFn extends DoFn<KV<byte[], Iterable<List<IndexEntry>>>, OrderedPart> {
  private final OrderGroups spec;
  private final PCollectionView<Map<String, GroupPlan>> plans;
  private final Counter partsOrdered = Metrics.counter(Backfill.METRICS, "partsOrdered");
  private final Counter tieQueries = Metrics.counter(Backfill.METRICS, "tieQueries");
  private final Counter retries = Metrics.counter(Backfill.METRICS, "throttledRetries");
  private transient DynamoDbClient client;
  private transient TieOrder ties;

  OrderPartFn(OrderGroups spec, PCollectionView<Map<String, GroupPlan>> plans) {
    this.spec = spec;
    this.plans = plans;
  }

  @Setup
  public void setup() {
    KeySchema schema = spec.getSchema();
    DynamoConnection connection = spec.getTieResolution();
    if (spec.getTieOrder() != null) {
      ties = spec.getTieOrder().apply(schema);
    } else if (connection != null && schema.tiesPossible() && schema.indexName() != null) {
      client = connection.client(retries::inc);
      ties = new DynamoTieOrder(client, schema, tieQueries::inc);
    } else {
      ties = TieOrder.UNKNOWN;
    }
  }

  @ProcessElement
  public void process(ProcessContext c) throws java.io.IOException {
    KV<byte[], Iterable<List<IndexEntry>>> element = c.element();
    int part = AssignPartFn.partOf(element.getKey());
    List<IndexEntry> sorted = new ArrayList<>();
    element.getValue().forEach(sorted::addAll);
    sorted.sort(IndexEntry.ORDER);
    GroupPlan plan = c.sideInput(plans).getOrDefault(OrderGroups.groupId(sorted.get(0).group()), GroupPlan.SINGLE);
    List<IndexRecord> records = new ArrayList<>(sorted.size());
    GroupRecords g = new GroupRecords(ties, records::add);
    for (IndexEntry e : sorted) {
      g.add(e);
    }
    g.finish();
    partsOrdered.inc();
    c.output(new OrderedPart(sorted.get(0).group(), part, plan.parts(), records));
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
