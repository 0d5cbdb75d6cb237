package io.pagemark.transforms;

import io.pagemark.format.BuildIds;
import io.pagemark.transforms.order.GroupPlan;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.order.OrderPartFn;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.order.OrderedPartCoder;
import io.pagemark.transforms.order.PlanGroupFn;
import io.pagemark.transforms.sink.file.ConcatPartsFn;
import io.pagemark.transforms.sink.file.GroupSummary;
import io.pagemark.transforms.sink.file.PublishBuildFn;
import io.pagemark.transforms.sink.file.WritePartFn;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import io.pagemark.transforms.source.ScanSegmentFn;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyValue;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * Builds a file index from index entries, whatever produced them: orders every group as DynamoDB does (in parts that
 * each fit a worker), writes one group file per group into a partial build, and publishes it atomically. Emits the
 * build's counts once published. {@link Backfill} feeds it from a table scan; a benchmark can feed it synthetic
 * entries.
 *
 * <p>Equal sort keys are put in DynamoDB's order by querying the index when a connection is given
 * ({@link #withTieResolution}); without one, such runs are flagged and lookups step around them.
 */
public final class BuildIndex extends PTransform<PCollection<IndexEntry>, PCollection<BuildInfo.Counts>> {
  private final KeySchema schema;
  private final DynamoConnection connection;
  private final String output;
  private final String buildId;
  private final long buildTimeMillis;
  private final int keepBuilds;
  private final long maxPartEntries;
  private final ScanCounts scanCounts;
  private final WriteRedisSortedSets redis;

  /** What the source read besides the entries, for the build's accounting. */
  public record ScanCounts(PCollectionView<Map<String, Long>> tallies, PCollectionView<Long> deadLetters) {}

  private BuildIndex(
      KeySchema schema,
      DynamoConnection connection,
      String output,
      String buildId,
      long buildTimeMillis,
      int keepBuilds,
      long maxPartEntries,
      ScanCounts scanCounts,
      WriteRedisSortedSets redis) {
    this.schema = schema;
    this.connection = connection;
    this.output = output;
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
    this.keepBuilds = keepBuilds;
    this.maxPartEntries = maxPartEntries;
    this.scanCounts = scanCounts;
    this.redis = redis;
  }

  /** A build of entries with this key schema; output required; keeps 3 builds; parts of 200,000 entries. */
  public static BuildIndex of(KeySchema schema) {
    long now = System.currentTimeMillis();
    return new BuildIndex(
        Objects.requireNonNull(schema), null, null, BuildIds.newId(now), now, 3, Backfill.DEFAULT_MAX_PART_ENTRIES,
        null, null);
  }

  /** Learn DynamoDB's order of equal sort keys by querying the schema's index through this connection. */
  public BuildIndex withTieResolution(DynamoConnection c) {
    return new BuildIndex(schema, c, output, buildId, buildTimeMillis, keepBuilds, maxPartEntries, scanCounts, redis);
  }

  /** The index root directory. */
  public BuildIndex withOutput(String root) {
    return new BuildIndex(schema, connection, root, buildId, buildTimeMillis, keepBuilds, maxPartEntries, scanCounts, redis);
  }

  /** The build's id and time. */
  public BuildIndex withBuild(String id, long timeMillis) {
    return new BuildIndex(
        schema, connection, output, IndexLayout.checkBuildId(id), timeMillis, keepBuilds, maxPartEntries, scanCounts, redis);
  }

  /** Published builds to keep (the current one is never removed). */
  public BuildIndex withKeepBuilds(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("keepBuilds must be at least 1, not " + n);
    }
    return new BuildIndex(schema, connection, output, buildId, buildTimeMillis, n, maxPartEntries, scanCounts, redis);
  }

  /**
   * The most entries one worker orders at once: bigger groups are split into parts of about this size at sampled
   * sort keys. A run of equal sort keys is never split, so one run must fit a worker.
   */
  public BuildIndex withMaxPartEntries(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("maxPartEntries must be at least 1, not " + n);
    }
    return new BuildIndex(schema, connection, output, buildId, buildTimeMillis, keepBuilds, n, scanCounts, redis);
  }

  /** The scan's counts, so that the build accounts for items that did not become entries. */
  public BuildIndex withScanCounts(ScanCounts counts) {
    return new BuildIndex(schema, connection, output, buildId, buildTimeMillis, keepBuilds, maxPartEntries, counts, redis);
  }

  /** Also (or only, without {@link #withOutput}) load the index into Redis with this sink. */
  public BuildIndex withRedis(WriteRedisSortedSets sink) {
    return new BuildIndex(
        schema, connection, output, buildId, buildTimeMillis, keepBuilds, maxPartEntries, scanCounts, sink);
  }

  public String buildId() {
    return buildId;
  }

  @Override
  public void validate(org.apache.beam.sdk.options.PipelineOptions options) {
    if ((output == null || output.isBlank()) && redis == null) {
      throw new IllegalArgumentException("BuildIndex needs an output directory or a Redis sink");
    }
  }

  @Override
  public PCollection<BuildInfo.Counts> expand(PCollection<IndexEntry> entries) {
    PCollection<OrderedPart> parts = entries.apply("Order groups", new OrderGroups());
    if (redis != null) {
      parts.apply("Write Redis sorted sets", redis);
    }
    if (output == null) {
      return entries.getPipeline()
          .apply("No file index", Create.empty(SerializableCoder.of(BuildInfo.Counts.class)));
    }
    String root = Path.of(output).toAbsolutePath().normalize().toString();

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
    PCollectionView<Iterable<GroupSummary>> groupView = groups.apply("Written groups", View.asIterable());

    ScanCounts counts = scanCounts;
    if (counts == null) {
      // Every input element is an entry: the scan count is the entry count, nothing was skipped.
      PCollectionView<Map<String, Long>> tallies =
          entries
              .apply("Count entries", Count.globally())
              .apply("As scan count", MapElements.into(
                  TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.longs()))
                  .via(n -> KV.of(ScanSegmentFn.Tally.ITEMS_SCANNED, n)))
              .apply("Scan counts", View.asMap());
      PCollectionView<Long> none =
          entries.getPipeline().apply("No dead letters", Create.of(0L)).apply("Dead letter count",
              View.asSingleton());
      counts = new ScanCounts(tallies, none);
    }
    return entries
        .getPipeline()
        .apply("Publish trigger", Create.of(buildId))
        .apply(
            "Publish build",
            ParDo.of(
                    new PublishBuildFn(
                        schema, root, buildId, buildTimeMillis, keepBuilds, groupView, counts.tallies(),
                        counts.deadLetters()))
                .withSideInputs(groupView, counts.tallies(), counts.deadLetters()))
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
      PCollectionView<Map<String, GroupPlan>> plans =
          byGroup
              .apply("Count and sample groups", Combine.perKey(new PlanGroupFn(maxPartEntries)))
              .setCoder(KvCoder.of(StringUtf8Coder.of(), new PlanGroupFn.GroupPlanCoder()))
              .apply("Keep big groups", Filter.by(kv -> kv.getValue().parts() > 1))
              .apply("Part plans", View.asMap());
      return byGroup
          .apply("Assign parts", ParDo.of(new AssignPartFn(plans)).withSideInputs(plans))
          .setCoder(KvCoder.of(StringUtf8Coder.of(), IndexEntryCoder.of()))
          .apply("Group by " + schema.groupAttribute() + " and part", GroupByKey.create())
          .apply("Order parts", ParDo.of(new OrderPartFn(connection, schema, plans)).withSideInputs(plans))
          .setCoder(OrderedPartCoder.of());
    }
  }

  /** Keys each entry by its group and part. */
  static final class AssignPartFn extends DoFn<KV<String, IndexEntry>, KV<String, IndexEntry>> {
    private final PCollectionView<Map<String, GroupPlan>> plans;

    AssignPartFn(PCollectionView<Map<String, GroupPlan>> plans) {
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

  public static String groupOfPartKey(String key) {
    return key.substring(0, key.lastIndexOf('/'));
  }

  public static int partOfPartKey(String key) {
    return Integer.parseInt(key.substring(key.lastIndexOf('/') + 1));
  }

  /**
   * The grouping key: the group key's type and canonical bytes in hex (so "1.0" and "1" are one group, as in
   * DynamoDB).
   */
  public static String groupId(KeyValue group) {
    return group.type().code() + ":" + java.util.HexFormat.of().formatHex(group.sortableBytes());
  }
}
