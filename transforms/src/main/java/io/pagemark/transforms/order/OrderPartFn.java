package io.pagemark.transforms.order;

import io.pagemark.order.DynamoTieOrder;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import io.pagemark.transforms.Backfill;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
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
 * Orders one part of a group as DynamoDB does: sorts its entries by the order-preserving bytes of their sort keys
 * (then of their other keys, see {@link io.pagemark.dynamo.IndexEntry#ORDER}) without decoding them
 * ({@link PartSort}), learns DynamoDB's order of each run of equal sort keys ({@link DynamoTieOrder}), and emits the
 * part's records, decoding each entry once. Holds one part in memory, never a group.
 */
final class OrderPartFn extends DoFn<KV<byte[], Iterable<EntryBlock>>, OrderedPart> {
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
    byte[] key = c.element().getKey();
    GroupPlan plan = c.sideInput(plans)
        .getOrDefault(AssignPartFn.groupId(key, key.length - Integer.BYTES), GroupPlan.SINGLE);
    c.output(order(c.element().getValue(), AssignPartFn.partOf(key), plan.parts(), ties));
    partsOrdered.inc();
  }

  /** Orders the entries of one part (blocks of one group key), runs of equal sort keys by {@code ties}. */
  static OrderedPart order(Iterable<EntryBlock> blocks, int part, int parts, TieOrder ties)
      throws java.io.IOException {
    PartSort sorted = new PartSort(blocks);
    int n = sorted.size();
    // the group key as the part's first entry stores it, as when entries were objects
    KeyValue group = sorted.block(0).groupOf(sorted.entryAt(0));
    List<IndexRecord> records = new ArrayList<>(n);
    for (int i = 0; i < n; ) {
      int end = i + 1;
      while (end < n && sorted.sameSortKey(i, end)) {
        end++;
      }
      if (end == i + 1) {
        byte[] b = sorted.block(i).bytes();
        records.add(IndexRecord.unique(EntryBlock.keys(b, EntryBlock.keysOf(b, sorted.entryAt(i)))));
      } else {
        // a run of equal sort keys: GroupRecords puts it in DynamoDB's order
        GroupRecords run = new GroupRecords(ties, records::add);
        for (int k = i; k < end; k++) {
          run.add(sorted.block(k).entry(sorted.entryAt(k)));
        }
        run.finish();
      }
      i = end;
    }
    return new OrderedPart(group, part, parts, records);
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
