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
import java.util.Arrays;
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
 * (then of their other keys, see {@link io.pagemark.dynamo.IndexEntry#ORDER}) without decoding them, learns
 * DynamoDB's order of each run of equal sort keys ({@link DynamoTieOrder}), and emits the part's records, decoding
 * each entry once. Holds one part in memory, never a group.
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

  /** Where one entry lies in its block, with its sort key's order-preserving bytes found once. */
  private static final class Ref implements Comparable<Ref> {
    final EntryBlock block;
    final int at;
    final int sortKey;
    final int sortFrom;
    final int sortTo;

    Ref(EntryBlock block, int at) {
      this.block = block;
      this.at = at;
      byte[] b = block.bytes();
      this.sortKey = EntryBlock.skipVarInt(b, EntryBlock.keysOf(b, at));
      this.sortFrom = EntryBlock.sortableFrom(b, sortKey);
      this.sortTo = sortFrom + EntryBlock.sortableLength(b, sortKey);
    }

    /** Compares sort keys only: equal for entries of one run. */
    int compareSortKey(Ref o) {
      byte[] a = block.bytes();
      byte[] b = o.block.bytes();
      if (a[sortKey] != b[o.sortKey]) {
        return Integer.compare(a[sortKey] & 0xFF, b[o.sortKey] & 0xFF); // types, as KeyValue.compareTo
      }
      return Arrays.compareUnsigned(a, sortFrom, sortTo, b, o.sortFrom, o.sortTo);
    }

    /** {@code IndexEntry.ORDER}: the sort key, then the other keys' order-preserving bytes. */
    @Override
    public int compareTo(Ref o) {
      int c = compareSortKey(o);
      if (c != 0) {
        return c;
      }
      byte[] a = block.bytes();
      byte[] b = o.block.bytes();
      int n = EntryBlock.readVarInt(a, EntryBlock.keysOf(a, at));
      int p = EntryBlock.skipKey(a, sortKey);
      int q = EntryBlock.skipKey(b, o.sortKey);
      for (int i = 1; i < n; i++) {
        int pf = EntryBlock.sortableFrom(a, p);
        int qf = EntryBlock.sortableFrom(b, q);
        c = Arrays.compareUnsigned(a, pf, pf + EntryBlock.sortableLength(a, p),
            b, qf, qf + EntryBlock.sortableLength(b, q));
        if (c != 0) {
          return c;
        }
        p = EntryBlock.skipKey(a, p);
        q = EntryBlock.skipKey(b, q);
      }
      return 0;
    }
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
    if (AssignPartFn.isShared(key)) {
      for (List<EntryBlock> group : byGroup(c.element().getValue())) {
        c.output(order(group, 0, 1, ties));
        partsOrdered.inc();
      }
      return;
    }
    GroupPlan plan = c.sideInput(plans)
        .getOrDefault(AssignPartFn.groupId(key, key.length - Integer.BYTES), GroupPlan.SHARED);
    c.output(order(c.element().getValue(), AssignPartFn.partOf(key), plan.parts(), ties));
    partsOrdered.inc();
  }

  /**
   * The blocks of a shared part, by group, in the order of the groups' keys. Every block holds entries of one group
   * (equal group keys; a number may be written two ways, so they are compared as values).
   */
  static java.util.Collection<List<EntryBlock>> byGroup(Iterable<EntryBlock> blocks) {
    java.util.TreeMap<String, List<EntryBlock>> groups = new java.util.TreeMap<>();
    for (EntryBlock block : blocks) {
      String id = OrderGroups.groupId(block.groupOf(block.firstEntry()));
      groups.computeIfAbsent(id, g -> new ArrayList<>()).add(block);
    }
    return groups.values();
  }

  /** Orders the entries of one part (blocks of one group key), runs of equal sort keys by {@code ties}. */
  static OrderedPart order(Iterable<EntryBlock> blocks, int part, int parts, TieOrder ties)
      throws java.io.IOException {
    List<Ref> sorted = new ArrayList<>();
    for (EntryBlock block : blocks) {
      byte[] b = block.bytes();
      for (int at = block.firstEntry(), i = 0; i < block.count(); i++, at = EntryBlock.next(b, at)) {
        sorted.add(new Ref(block, at));
      }
    }
    Ref[] refs = sorted.toArray(new Ref[0]);
    sorted = null;
    Arrays.sort(refs);
    // the group key as the part's first entry stores it, as when entries were objects
    KeyValue group = refs[0].block.groupOf(refs[0].at);
    List<IndexRecord> records = new ArrayList<>(refs.length);
    for (int i = 0; i < refs.length; ) {
      int end = i + 1;
      while (end < refs.length && refs[end].compareSortKey(refs[i]) == 0) {
        end++;
      }
      if (end == i + 1) {
        Ref r = refs[i];
        records.add(IndexRecord.unique(EntryBlock.keys(r.block.bytes(), EntryBlock.keysOf(r.block.bytes(), r.at))));
      } else {
        // a run of equal sort keys: GroupRecords puts it in DynamoDB's order
        GroupRecords run = new GroupRecords(ties, records::add);
        for (int k = i; k < end; k++) {
          run.add(refs[k].block.entry(refs[k].at));
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
