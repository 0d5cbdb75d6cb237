package io.pagemark.transforms.order;

import com.google.auto.value.AutoValue;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyValue;
import io.pagemark.order.TieOrder;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.beam.sdk.values.KV;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Orders every group exactly as a Query on the index returns it, in parts that each fit a worker: the heart of
 * pagemark. Each bundle gathers its entries into blocks per group, counts each group and keeps a deterministic sample
 * of its sort keys, and a combiner merges those per group (entries move in blocks, never one by one); a group of
 * more than {@code maxPartEntries} entries is cut at sampled sort key <em>values</em> (so a run of equal sort keys is
 * never split), and groups of at most a quarter of that share parts (each still ordered on its own); each group is
 * then sorted by DynamoDB's byte order of sort keys, and each run of equal sort keys is put in DynamoDB's own order
 * by asking DynamoDB ({@link io.pagemark.order.DynamoTieOrder}), or flagged as unknown when no connection is given.
 * Every index sink stores the resulting {@link OrderedPart}s.
 *
 * <pre>{@code
 * PCollection<OrderedPart> parts =
 *     entries.apply("Order groups", OrderGroups.of(schema).withTieResolution(connection));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration.
 */
@AutoValue
public abstract class OrderGroups extends PTransform<PCollection<IndexEntry>, PCollection<OrderedPart>> {
  /** Parts of this many entries by default. */
  public static final long DEFAULT_MAX_PART_ENTRIES = 200_000;

  /** The key schema of the entries. */
  public abstract KeySchema getSchema();

  abstract @Nullable DynamoConnection getTieResolution();

  abstract @Nullable SerializableFunction<KeySchema, TieOrder> getTieOrder();

  abstract long getMaxPartEntries();

  abstract @Nullable Boolean getShapedForDirectRunner();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setSchema(KeySchema schema);

    abstract Builder setTieResolution(DynamoConnection connection);

    abstract Builder setTieOrder(SerializableFunction<KeySchema, TieOrder> ties);

    abstract Builder setMaxPartEntries(long n);

    abstract Builder setShapedForDirectRunner(Boolean direct);

    abstract OrderGroups build();
  }

  /**
   * Orders entries of this key schema; runs of equal sort keys stay unresolved until {@link #withTieResolution}.
   *
   * @throws NullPointerException if {@code schema} is null
   */
  public static OrderGroups of(KeySchema schema) {
    return new AutoValue_OrderGroups.Builder()
        .setSchema(Objects.requireNonNull(schema, "schema"))
        .setMaxPartEntries(DEFAULT_MAX_PART_ENTRIES)
        .build();
  }

  /**
   * Learns DynamoDB's order of equal sort keys by querying the schema's index through this connection.
   *
   * @throws NullPointerException if {@code connection} is null
   */
  public OrderGroups withTieResolution(DynamoConnection connection) {
    return toBuilder().setTieResolution(Objects.requireNonNull(connection, "connection")).build();
  }

  /** Puts runs of equal sort keys in this order instead of DynamoDB's (for tests: DynamoDB is not asked). */
  OrderGroups withTieOrder(SerializableFunction<KeySchema, TieOrder> ties) {
    return toBuilder().setTieOrder(Objects.requireNonNull(ties, "ties")).build();
  }

  /**
   * The most entries one worker orders at once (default {@value #DEFAULT_MAX_PART_ENTRIES}): bigger groups are split
   * into parts of about this size at sampled sort keys. A run of equal sort keys is never split, so one run must fit
   * a worker.
   *
   * @throws IllegalArgumentException if {@code n} is below 1
   */
  public OrderGroups withMaxPartEntries(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("maxPartEntries must be at least 1, not " + n);
    }
    return toBuilder().setMaxPartEntries(n).build();
  }

  /**
   * Whether the steps are shaped for Beam's DirectRunner ({@code true}) or for runners that shuffle ({@code false});
   * by default, for the DirectRunner on the DirectRunner only ({@link #shapedForDirectRunner}). For tests, which run
   * on the DirectRunner and order the same entries both ways.
   */
  OrderGroups withDirectRunnerShape(boolean direct) {
    return toBuilder().setShapedForDirectRunner(direct).build();
  }

  /**
   * Whether this pipeline's steps are shaped for Beam's DirectRunner. The DirectRunner pays for every key it groups
   * by (state, a timer and a bundle of its own, and each bundle builds the next step's evaluator anew: about 0.9 ms a
   * group, 22 s of a 250,000-entry build of 25,000 groups) and for every element it groups, while it keeps every
   * element in memory anyway: there the bundles' samples go under one key, one element per bundle; and it tries a
   * step with a side input again and again until the side input is ready, so the blocks wait for the plans before
   * {@code Assign parts} ({@link HoldBlocks}). Runners that shuffle (Flink) get a key per bucket of groups (a
   * hash of the group's id picks one of {@value BlockEntriesFn#SAMPLE_BUCKETS}), which they sort and spill like any
   * other (one worker would otherwise hold every group's sample at once; a key per group made the plans of a table of
   * many small groups cost a record per group and bundle), and read a step's input once its side inputs are ready.
   */
  boolean shapedForDirectRunner(org.apache.beam.sdk.options.PipelineOptions options) {
    Boolean given = getShapedForDirectRunner();
    return given != null ? given : options.getRunner().getName().equals("org.apache.beam.runners.direct.DirectRunner");
  }

  @Override
  public PCollection<OrderedPart> expand(PCollection<IndexEntry> entries) {
    return order(entries).get(PARTS);
  }

  /**
   * These steps, with how many entries they ordered as well: {@link #PARTS}, and {@link #ENTRY_COUNTS} (counts whose
   * sum is the number of entries). Counted where entries are blocked, so that no other step reads every entry: on
   * Flink's batch runner a second reader of the entries stops their producer from being chained to the ordering,
   * and every entry is then serialized between them.
   */
  public PTransform<PCollection<IndexEntry>, PCollectionTuple> withEntryCounts() {
    return new Counted<>(this);
  }

  /**
   * {@link #withEntryCounts} for entries that come in lists (a source's pages of them, in any sizes): the same parts
   * and counts as for the lists' entries one by one. A runner pays for every element it hands a step, so a source
   * that emits a page at a time rather than an entry at a time makes the build cheaper (docs/build-speed.md,
   * "Seventeenth round").
   */
  public PTransform<PCollection<List<IndexEntry>>, PCollectionTuple> batchesWithEntryCounts() {
    return new Counted<>(this);
  }

  /** {@link OrderGroups} with its entry counts, of entries or of lists of them: see {@link #withEntryCounts}. */
  private static final class Counted<T> extends PTransform<PCollection<T>, PCollectionTuple> {
    private final OrderGroups spec;

    Counted(OrderGroups spec) {
      this.spec = spec;
    }

    @Override
    public PCollectionTuple expand(PCollection<T> entries) {
      return spec.order(entries);
    }
  }

  /** The ordered parts, in the output of {@link #withEntryCounts}. */
  public static final TupleTag<OrderedPart> PARTS = new TupleTag<>("parts") {};

  /**
   * Entry counts (one per element of samples: a bundle's bucket of groups) adding up to the entries ordered: output of
   * {@link #withEntryCounts}.
   */
  public static final TupleTag<Long> ENTRY_COUNTS = new TupleTag<>("entryCounts") {};

  /**
   * The ordered parts ({@link #PARTS}) and entry counts ({@link #ENTRY_COUNTS}) of the entries, given one by one or in
   * lists ({@link BlockEntriesFn} takes either).
   */
  private PCollectionTuple order(PCollection<?> entries) {
    KeySchema schema = getSchema();
    PlanGroupFn planner = new PlanGroupFn(getMaxPartEntries());
    boolean directRunner = shapedForDirectRunner(entries.getPipeline().getOptions());
    KvCoder<byte[], EntryBlock> blockCoder = KvCoder.of(ByteArrayCoder.of(), EntryBlockCoder.of());
    // On the DirectRunner the samples have an output of their own; elsewhere they travel among the blocks, so that
    // the step has one output, which Assign parts reads itself (SampleBlocks)
    PCollectionTuple blocked = entries.apply("Block and sample groups",
        ParDo.of(new BlockEntriesFn(planner.sampleEvery(), directRunner)).withOutputTags(BlockEntriesFn.BLOCKS,
            directRunner ? TupleTagList.of(BlockEntriesFn.SAMPLES) : TupleTagList.empty()));
    PCollection<KV<byte[], EntryBlock>> blocks = blocked.get(BlockEntriesFn.BLOCKS).setCoder(blockCoder);
    PCollection<KV<String, PlanGroupFn.Samples>> samples = (directRunner
        ? blocked.get(BlockEntriesFn.SAMPLES)
        : blocks.apply("Pick samples", ParDo.of(new SampleBlocks.PickFn())))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), new PlanGroupFn.SamplesCoder()));
    PCollection<Long> counts = samples.apply("Entries per sample",
        MapElements.into(TypeDescriptors.longs()).via(kv -> kv.getValue().count())).setCoder(VarLongCoder.of());
    PCollection<KV<String, GroupPlan>> bigGroups =
        samples
            .apply("Count and sample groups", Combine.perKey(planner))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), PlanGroupFn.plansCoder()))
            .apply("Keep big groups", FlatMapElements
                .into(TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptor.of(GroupPlan.class)))
                .via(kv -> kv.getValue().entrySet().stream().map(e -> KV.of(e.getKey(), e.getValue()))
                    .collect(Collectors.toList())))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), new PlanGroupFn.GroupPlanCoder()));
    PCollectionView<Map<String, GroupPlan>> plans = bigGroups.apply("Part plans", View.asMap());
    PCollectionView<Integer> sharedParts =
        counts.apply("Shared parts", Combine.globally(new SharedPartsFn(getMaxPartEntries())).asSingletonView());
    if (directRunner) {
      blocks = blocks.apply("Hold blocks until the plans are made", HoldBlocks.until(bigGroups));
    }
    PCollection<OrderedPart> parts = blocks
        .apply("Assign parts", ParDo.of(new AssignPartFn(plans, sharedParts)).withSideInputs(plans, sharedParts))
        .setCoder(blockCoder)
        .apply("Group by " + schema.groupAttribute() + " and part", GroupByKey.create())
        .apply("Order parts", ParDo.of(new OrderPartFn(this)))
        .setCoder(OrderedPartCoder.of());
    return PCollectionTuple.of(PARTS, parts).and(ENTRY_COUNTS, counts);
  }

  /**
   * The number of shared parts for this many entries in all: one per {@code maxPartEntries / 2} entries (at least 1,
   * at most 2<sup>20</sup>). Small groups share parts of about half a part on average: with groups of at most a
   * quarter of a part each, the fullest shared part stays near a part's size.
   */
  static final class SharedPartsFn extends TotalFn<Integer> {
    private final long maxPart;

    SharedPartsFn(long maxPart) {
      this.maxPart = maxPart;
    }

    @Override
    protected Integer of(long n) {
      return (int) Math.max(1, Math.min(1 << 20, (2 * n + maxPart - 1) / maxPart));
    }

    @Override
    protected org.apache.beam.sdk.coders.Coder<Integer> outputCoder() {
      return org.apache.beam.sdk.coders.VarIntCoder.of();
    }
  }

  /**
   * The grouping key of a group key: its type and canonical bytes in hex, so that "1.0" and "1" are one group, as in
   * DynamoDB.
   */
  public static String groupId(KeyValue group) {
    return group.type().code() + ":" + HexFormat.of().formatHex(group.sortableBytes());
  }
}
