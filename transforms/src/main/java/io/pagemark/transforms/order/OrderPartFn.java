package io.pagemark.transforms.order;

import io.pagemark.order.DynamoTieOrder;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import io.pagemark.transforms.Backfill;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.EncodedRecords;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.Arrays;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Orders one part of a group as DynamoDB does: sorts its entries by the order-preserving bytes of their sort keys
 * (then of their other keys, see {@link io.pagemark.dynamo.IndexEntry#ORDER}) without decoding them
 * ({@link PartSort}), learns DynamoDB's order of each run of equal sort keys ({@link DynamoTieOrder}), and emits the
 * part's records. An entry whose sort key is unique is copied from its block's bytes into its record's
 * ({@link EncodedRecords}, what the file sink writes as it is), never decoded; the entries of a run of ties are decoded
 * once, for DynamoDB's order. A part whose entries differ in their keys' types or number (for the sink to refuse as it
 * refuses any record that does not fit its header), or whose few much wider records would make the padding take more
 * memory than record objects ({@link Shape#compact}), is emitted as record objects instead. Holds one part in memory,
 * never a group.
 */
final class OrderPartFn extends DoFn<KV<byte[], Iterable<EntryBlock>>, OrderedPart> {
  /** A record's tie fields: what a record takes besides its key values. */
  private static final int RECORD_PREFIX_BYTES = io.pagemark.format.GroupFileWriter.widthFor(List.of());
  private final OrderGroups spec;
  private final Counter partsOrdered = Metrics.counter(Backfill.METRICS, "partsOrdered");
  private final Counter tieQueries = Metrics.counter(Backfill.METRICS, "tieQueries");
  private final Counter retries = Metrics.counter(Backfill.METRICS, "throttledRetries");
  private transient DynamoDbClient client;
  private transient TieOrder ties;

  OrderPartFn(OrderGroups spec) {
    this.spec = spec;
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
    c.output(order(c.element().getValue(), AssignPartFn.partOf(key), AssignPartFn.partsOf(key), ties));
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
      groups.computeIfAbsent(id, g -> new java.util.ArrayList<>()).add(block);
    }
    return groups.values();
  }

  /** Orders the entries of one part (blocks of one group key), runs of equal sort keys by {@code ties}. */
  static OrderedPart order(Iterable<EntryBlock> blocks, int part, int parts, TieOrder ties)
      throws java.io.IOException {
    PartSort sorted = new PartSort(blocks);
    int n = sorted.size();
    // the group key as the part's first entry stores it, as when entries were objects
    int first = sorted.entry(0);
    KeyValue group = sorted.block(first).groupOf(sorted.at(first));
    // runs of equal sort keys, as [from, to) ranks
    int[] runs = new int[16];
    int runCount = 0;
    boolean[] tied = new boolean[n];
    for (int r = 0; r < n; ) {
      int end = r + 1;
      while (end < n && sorted.sameSortKey(sorted.entry(r), sorted.entry(end))) {
        end++;
      }
      if (end - r > 1) {
        if (runCount * 2 == runs.length) {
          runs = Arrays.copyOf(runs, runs.length * 2);
        }
        runs[runCount * 2] = r;
        runs[runCount * 2 + 1] = end;
        runCount++;
        for (int k = r; k < end; k++) {
          tied[sorted.entry(k)] = true;
        }
      }
      r = end;
    }
    Shape shape = Shape.of(sorted);
    if (shape == null || !shape.compact(n)) {
      // entries of different key types or counts (for the sink to refuse), or a few much wider than the rest
      return new OrderedPart(group, part, parts, asObjects(sorted, runs, runCount, tied, ties));
    }
    KeyType[] types = shape.types();
    EncodedRecords.Builder records = new EncodedRecords.Builder(List.of(types), shape.width(), n);
    // the other entries are copied in the order their blocks hold them: in rank order their bytes are read at
    // random across the part's blocks, and decoding a part of 200,000 entries took about three times as long
    for (int i = 0; i < n; i++) {
      if (!tied[i]) {
        byte[] b = sorted.block(i).bytes();
        int rank = sorted.rank(i);
        int q = records.start(rank, 0, 1, true, 0);
        int p = EntryBlock.skipVarInt(b, EntryBlock.keysOf(b, sorted.at(i)));
        for (int k = 0; k < types.length; k++) {
          int from = EntryBlock.skipVarInt(b, p + 1);
          q = records.key(rank, q, b, from, EntryBlock.readVarInt(b, p + 1));
          p = EntryBlock.skipKey(b, p);
        }
      }
    }
    orderRuns(sorted, runs, runCount, ties, records::put);
    return new OrderedPart(group, part, parts, records.build());
  }

  /**
   * What the records of a part would take as bytes: the types of their key values, the width of the widest record
   * ({@link io.pagemark.format.GroupFileWriter#widthFor}) and the sum of their own widths.
   */
  record Shape(KeyType[] types, int width, long recordBytes) {
    /**
     * What a record held as objects takes besides its keys' bytes, about: the record, its list, a key value and an
     * array per key (12 to 16 bytes of header each, references, fields).
     */
    static final int OBJECT_BYTES = 128;

    /** The shape of a part's records, in one pass over its entries; null when their keys differ in types or number. */
    static Shape of(PartSort sorted) {
      byte[] codes = null;
      int width = 0;
      long total = 0;
      for (int i = 0; i < sorted.size(); i++) {
        byte[] b = sorted.block(i).bytes();
        int p = EntryBlock.keysOf(b, sorted.at(i));
        int n = EntryBlock.readVarInt(b, p);
        p = EntryBlock.skipVarInt(b, p);
        if (codes == null) {
          codes = new byte[n];
          for (int k = 0, q = p; k < n; k++, q = EntryBlock.skipKey(b, q)) {
            codes[k] = b[q];
          }
        }
        if (n != codes.length) {
          return null;
        }
        int w = RECORD_PREFIX_BYTES;
        for (int k = 0; k < n; k++, p = EntryBlock.skipKey(b, p)) {
          if (b[p] != codes[k]) {
            return null;
          }
          w += 2 + EntryBlock.readVarInt(b, p + 1);
        }
        width = Math.max(width, w);
        total += w;
      }
      KeyType[] types = new KeyType[codes.length];
      for (int k = 0; k < types.length; k++) {
        types[k] = KeyType.fromCode(codes[k]);
      }
      return new Shape(types, width, total);
    }

    /**
     * Whether {@code n} records of this shape take no more memory as bytes (every record padded to the widest) than
     * as objects: a part whose few records are much wider than the rest (DynamoDB allows keys of up to 2 KB) stays
     * objects, so that a part never takes more memory than its records do; so does a part too big for one array.
     */
    boolean compact(int n) {
      long bytes = (long) n * width;
      return bytes <= recordBytes + (long) n * OBJECT_BYTES && bytes <= Integer.MAX_VALUE - 16;
    }
  }

  /** The part's records as objects, for entries whose keys differ in number or types. */
  private static List<IndexRecord> asObjects(PartSort sorted, int[] runs, int runCount, boolean[] tied,
      TieOrder ties) throws java.io.IOException {
    int n = sorted.size();
    IndexRecord[] records = new IndexRecord[n];
    for (int i = 0; i < n; i++) {
      if (!tied[i]) {
        byte[] b = sorted.block(i).bytes();
        records[sorted.rank(i)] = IndexRecord.unique(EntryBlock.keys(b, EntryBlock.keysOf(b, sorted.at(i))));
      }
    }
    orderRuns(sorted, runs, runCount, ties, (rank, r) -> records[rank] = r);
    return Arrays.asList(records);
  }

  /** Where a record goes. */
  private interface Put {
    void put(int rank, IndexRecord r);
  }

  /** Puts each run of equal sort keys ([from, to) ranks) in DynamoDB's order ({@link GroupRecords}). */
  private static void orderRuns(PartSort sorted, int[] runs, int runCount, TieOrder ties, Put put)
      throws java.io.IOException {
    int[] next = new int[1];
    for (int k = 0; k < runCount; k++) {
      next[0] = runs[k * 2];
      GroupRecords run = new GroupRecords(ties, r -> put.put(next[0]++, r));
      for (int r = runs[k * 2]; r < runs[k * 2 + 1]; r++) {
        int e = sorted.entry(r);
        run.add(sorted.block(e).entry(sorted.at(e)));
      }
      run.finish();
    }
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
