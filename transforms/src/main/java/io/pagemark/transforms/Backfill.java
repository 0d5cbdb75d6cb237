package io.pagemark.transforms;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyValue;
import java.nio.file.Path;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * Builds a file index of a whole DynamoDB table: a parallel Scan of every item, grouped by the group key, each group
 * ordered exactly as a Query on the index returns it, one group file per group, published atomically as a new build
 * under the output root. Emits the build's counts once it is published.
 *
 * <pre>{@code
 * pipeline.apply(Backfill.of(connection, schema).withOutput("/data/index").withSegments(8));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration. The build id and time default to values fixed when
 * the transform is configured, so every worker of a run writes the same build.
 */
public final class Backfill extends PTransform<PBegin, PCollection<BuildInfo.Counts>> {
  /** Namespace of the build's Beam metrics (items read, groups written, ...). */
  public static final String METRICS = "pagemark";
  static final int DEAD_LETTER_SHARDS = 4;
  static final long DEFAULT_MAX_PART_ENTRIES = 200_000;

  private final DynamoConnection connection;
  private final KeySchema schema;
  private final String output;
  private final int segments;
  private final String buildId;
  private final long buildTimeMillis;
  private final int keepBuilds;
  private final long maxPartEntries;

  private Backfill(
      DynamoConnection connection,
      KeySchema schema,
      String output,
      int segments,
      String buildId,
      long buildTimeMillis,
      int keepBuilds,
      long maxPartEntries) {
    this.connection = connection;
    this.schema = schema;
    this.output = output;
    this.segments = segments;
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
    this.keepBuilds = keepBuilds;
    this.maxPartEntries = maxPartEntries;
  }

  /** A backfill of the table the schema describes, with 8 scan segments, keeping the 3 newest builds. */
  public static Backfill of(DynamoConnection connection, KeySchema schema) {
    long now = System.currentTimeMillis();
    return new Backfill(
        Objects.requireNonNull(connection), Objects.requireNonNull(schema), null, 8, BuildIds.newId(now), now, 3, DEFAULT_MAX_PART_ENTRIES);
  }

  /** The index root directory (required). */
  public Backfill withOutput(String root) {
    return new Backfill(connection, schema, root, segments, buildId, buildTimeMillis, keepBuilds, maxPartEntries);
  }

  /** Number of parallel Scan segments (1 to 1,000,000). */
  public Backfill withSegments(int n) {
    if (n < 1 || n > 1_000_000) {
      throw new IllegalArgumentException("segments must be between 1 and 1000000, not " + n);
    }
    return new Backfill(connection, schema, output, n, buildId, buildTimeMillis, keepBuilds, maxPartEntries);
  }

  /** The build's id and time (for tests and schedulers that name builds themselves). */
  public Backfill withBuild(String id, long timeMillis) {
    return new Backfill(
        connection, schema, output, segments, IndexLayout.checkBuildId(id), timeMillis, keepBuilds, maxPartEntries);
  }

  /** How many published builds to keep (the newest, and always the current one). */
  public Backfill withKeepBuilds(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("keepBuilds must be at least 1, not " + n);
    }
    return new Backfill(connection, schema, output, segments, buildId, buildTimeMillis, n, maxPartEntries);
  }

  /**
   * The most entries one worker orders at once (default 200,000): bigger groups are split into parts of about this
   * size at sampled sort keys. A run of equal sort keys is never split, so one run must fit a worker.
   */
  public Backfill withMaxPartEntries(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("maxPartEntries must be at least 1, not " + n);
    }
    return new Backfill(connection, schema, output, segments, buildId, buildTimeMillis, keepBuilds, n);
  }

  public String buildId() {
    return buildId;
  }

  @Override
  public void validate(org.apache.beam.sdk.options.PipelineOptions options) {
    if (output == null || output.isBlank()) {
      throw new IllegalArgumentException("Backfill needs an output directory: withOutput(...)");
    }
  }

  @Override
  public PCollection<BuildInfo.Counts> expand(PBegin begin) {
    String root = Path.of(output).toAbsolutePath().normalize().toString();
    PCollectionTuple scanned =
        begin
            .apply("List segments", Create.of(IntStream.range(0, segments).boxed().collect(Collectors.toList())))
            .apply("Spread segments", Reshuffle.viaRandomKey())
            .apply(
                "Scan segments",
                ParDo.of(new ScanSegmentFn(connection, schema, segments))
                    .withOutputTags(
                        ScanSegmentFn.ENTRIES,
                        TupleTagList.of(ScanSegmentFn.DEAD_LETTERS).and(ScanSegmentFn.TALLIES)));

    PCollection<IndexEntry> entries = scanned.get(ScanSegmentFn.ENTRIES).setCoder(IndexEntryCoder.of());
    PCollection<OrderedPart> parts = entries.apply("Order groups", new OrderGroups());

    PCollectionTuple written =
        parts.apply(
            "Write index files",
            ParDo.of(new WritePartFn(schema, root, buildId, buildTimeMillis))
                .withOutputTags(WritePartFn.GROUPS, TupleTagList.of(WritePartFn.PARTS)));
    PCollection<GroupSummary> joined =
        written
            .get(WritePartFn.PARTS)
            .setCoder(KvCoder.of(StringUtf8Coder.of(), SerializableCoder.of(WritePartFn.PartFile.class)))
            .apply("Group parts", GroupByKey.create())
            .apply("Join parts", ParDo.of(new ConcatPartsFn(schema, root, buildId, buildTimeMillis)))
            .setCoder(SerializableCoder.of(GroupSummary.class));
    PCollection<GroupSummary> groups =
        PCollectionList.of(written.get(WritePartFn.GROUPS).setCoder(SerializableCoder.of(GroupSummary.class)))
            .and(joined)
            .apply("All groups", Flatten.pCollections());

    PCollectionView<Long> deadLetters =
        scanned
            .get(ScanSegmentFn.DEAD_LETTERS)
            .setCoder(StringUtf8Coder.of())
            .apply(
                "Shard dead letters",
                WithKeys.<Integer, String>of(l -> Math.floorMod(l.hashCode(), DEAD_LETTER_SHARDS))
                    .withKeyType(TypeDescriptors.integers()))
            .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()))
            .apply("Group dead letters", GroupByKey.create())
            .apply("Write dead letters", ParDo.of(new WriteDeadLettersFn(root, buildId)))
            .setCoder(VarLongCoder.of())
            .apply("Count dead letters", Sum.longsGlobally().asSingletonView());

    PCollectionView<java.util.Map<String, Long>> tallies =
        scanned
            .get(ScanSegmentFn.TALLIES)
            .setCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
            .apply("Add up scan counts", Sum.longsPerKey())
            .apply("Scan counts", View.asMap());

    PCollectionView<Iterable<GroupSummary>> groupView = groups.apply("Written groups", View.asIterable());

    return begin
        .apply("Publish trigger", Create.of(buildId))
        .apply(
            "Publish build",
            ParDo.of(
                    new PublishBuildFn(
                        schema, root, buildId, buildTimeMillis, keepBuilds, groupView, tallies, deadLetters))
                .withSideInputs(groupView, tallies, deadLetters))
        .setCoder(SerializableCoder.of(BuildInfo.Counts.class));
  }

  /**
   * Orders every group as DynamoDB does, in parts that each fit a worker: counts and samples each group, splits big
   * groups at sampled sort keys, then sorts each part and learns DynamoDB's order of equal sort keys.
   */
  final class OrderGroups extends PTransform<PCollection<IndexEntry>, PCollection<OrderedPart>> {
    @Override
    public PCollection<OrderedPart> expand(PCollection<IndexEntry> entries) {
      PCollection<KV<String, IndexEntry>> byGroup =
          entries
              .apply(
                  "Key by " + schema.groupAttribute(),
                  WithKeys.<String, IndexEntry>of(e -> groupId(e.group())).withKeyType(TypeDescriptors.strings()))
              .setCoder(KvCoder.of(StringUtf8Coder.of(), IndexEntryCoder.of()));
      PCollectionView<java.util.Map<String, GroupPlan>> plans =
          byGroup
              .apply("Count and sample groups", Combine.perKey(new PlanGroupFn(maxPartEntries)))
              .setCoder(KvCoder.of(StringUtf8Coder.of(), SerializableCoder.of(GroupPlan.class)))
              .apply("Keep big groups", Filter.by(kv -> kv.getValue().parts() > 1))
              .apply("Part plans", View.asMap());
      return byGroup
          .apply(
              "Assign parts",
              ParDo.of(new AssignPartFn(plans)).withSideInputs(plans))
          .setCoder(KvCoder.of(StringUtf8Coder.of(), IndexEntryCoder.of()))
          .apply("Group by " + schema.groupAttribute() + " and part", GroupByKey.create())
          .apply("Order parts", ParDo.of(new OrderPartFn(connection, schema, plans)).withSideInputs(plans))
          .setCoder(OrderedPartCoder.of());
    }
  }

  /** Keys each entry by its group and part. */
  static final class AssignPartFn extends DoFn<KV<String, IndexEntry>, KV<String, IndexEntry>> {
    private final PCollectionView<java.util.Map<String, GroupPlan>> plans;

    AssignPartFn(PCollectionView<java.util.Map<String, GroupPlan>> plans) {
      this.plans = plans;
    }

    @ProcessElement
    public void process(ProcessContext c) {
      KV<String, IndexEntry> e = c.element();
      GroupPlan plan = c.sideInput(plans).get(e.getKey());
      int part = plan == null ? 0 : plan.partOf(e.getValue().sortKey().sortableBytes());
      c.output(KV.of(e.getKey() + "/" + part, e.getValue()));
    }
  }

  static String groupOfPartKey(String key) {
    return key.substring(0, key.lastIndexOf('/'));
  }

  static int partOfPartKey(String key) {
    return Integer.parseInt(key.substring(key.lastIndexOf('/') + 1));
  }

  /**
   * The grouping key: the group key's type and canonical bytes in hex (so "1.0" and "1" are one group, as in
   * DynamoDB).
   */
  static String groupId(KeyValue group) {
    return group.type().code() + ":" + java.util.HexFormat.of().formatHex(group.sortableBytes());
  }

}
