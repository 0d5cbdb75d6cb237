package io.pagemark.transforms;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildIds;
import io.pagemark.format.IndexLayout;
import io.pagemark.transforms.order.OrderGroups;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.source.ScanSegmentFn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * Builds an index from index entries, whatever produced them: orders every group as DynamoDB does
 * ({@link OrderGroups}), then hands the ordered parts to each {@link IndexSink}, which writes and publishes the build
 * atomically. Emits one {@link Published} per sink. {@link Backfill} feeds it from a table scan; a benchmark can feed
 * it synthetic entries.
 *
 * <pre>{@code
 * entries.apply(BuildIndex.of(schema).withTieResolution(connection).withSink(WriteIndexFiles.to("/data/index")));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration. The build id and time default to values fixed when
 * the transform is configured, so that every worker and every sink names the same build.
 */
public final class BuildIndex extends PTransform<PCollection<IndexEntry>, PCollection<Published>> {
  private final KeySchema schema;
  private final DynamoConnection connection;
  private final List<IndexSink> sinks;
  private final String buildId;
  private final long buildTimeMillis;
  private final int keepBuilds;
  private final long maxPartEntries;
  private final BuildContext.ScanCounts scanCounts;

  private BuildIndex(
      KeySchema schema,
      DynamoConnection connection,
      List<IndexSink> sinks,
      String buildId,
      long buildTimeMillis,
      int keepBuilds,
      long maxPartEntries,
      BuildContext.ScanCounts scanCounts) {
    this.schema = schema;
    this.connection = connection;
    this.sinks = List.copyOf(sinks);
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
    this.keepBuilds = keepBuilds;
    this.maxPartEntries = maxPartEntries;
    this.scanCounts = scanCounts;
  }

  /**
   * A build of entries with this key schema, with no sink yet; keeps 3 builds; parts of
   * {@value OrderGroups#DEFAULT_MAX_PART_ENTRIES} entries.
   *
   * @throws NullPointerException if {@code schema} is null
   */
  public static BuildIndex of(KeySchema schema) {
    long now = System.currentTimeMillis();
    return new BuildIndex(Objects.requireNonNull(schema, "schema"), null, List.of(), BuildIds.newId(now), now, 3,
        OrderGroups.DEFAULT_MAX_PART_ENTRIES, null);
  }

  /** Learns DynamoDB's order of equal sort keys by querying the schema's index through this connection. */
  public BuildIndex withTieResolution(DynamoConnection c) {
    return new BuildIndex(schema, Objects.requireNonNull(c, "connection"), sinks, buildId, buildTimeMillis,
        keepBuilds, maxPartEntries, scanCounts);
  }

  /** Also writes the build to this sink (at least one is required). */
  public BuildIndex withSink(IndexSink sink) {
    List<IndexSink> more = new ArrayList<>(sinks);
    more.add(Objects.requireNonNull(sink, "sink"));
    return new BuildIndex(schema, connection, more, buildId, buildTimeMillis, keepBuilds, maxPartEntries,
        scanCounts);
  }

  /**
   * The build's id and time (for tests and schedulers that name builds themselves).
   *
   * @throws IllegalArgumentException if the id is not a valid build id ({@link IndexLayout#checkBuildId})
   */
  public BuildIndex withBuild(String id, long timeMillis) {
    return new BuildIndex(schema, connection, sinks, IndexLayout.checkBuildId(id), timeMillis, keepBuilds,
        maxPartEntries, scanCounts);
  }

  /**
   * Published builds to keep (the current one is never removed).
   *
   * @throws IllegalArgumentException if {@code n} is below 1
   */
  public BuildIndex withKeepBuilds(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("keepBuilds must be at least 1, not " + n);
    }
    return new BuildIndex(schema, connection, sinks, buildId, buildTimeMillis, n, maxPartEntries, scanCounts);
  }

  /** See {@link OrderGroups#withMaxPartEntries}. */
  public BuildIndex withMaxPartEntries(long n) {
    OrderGroups.of(schema).withMaxPartEntries(n);
    return new BuildIndex(schema, connection, sinks, buildId, buildTimeMillis, keepBuilds, n, scanCounts);
  }

  /**
   * The source's counts, so that the build accounts for items that did not become entries. Without them every input
   * element counts as an item scanned, and nothing as skipped or dead.
   */
  public BuildIndex withScanCounts(BuildContext.ScanCounts counts) {
    return new BuildIndex(schema, connection, sinks, buildId, buildTimeMillis, keepBuilds, maxPartEntries,
        Objects.requireNonNull(counts, "counts"));
  }

  public String buildId() {
    return buildId;
  }

  /** The sinks, in the order they were added. */
  public List<IndexSink> sinks() {
    return sinks;
  }

  @Override
  public void validate(PipelineOptions options) {
    if (sinks.isEmpty()) {
      throw new IllegalArgumentException("BuildIndex needs at least one sink: withSink(...)");
    }
    sinks.forEach(IndexSink::validate);
  }

  @Override
  public PCollection<Published> expand(PCollection<IndexEntry> entries) {
    OrderGroups order = OrderGroups.of(schema).withMaxPartEntries(maxPartEntries);
    PCollection<OrderedPart> parts =
        entries.apply("Order groups", connection == null ? order : order.withTieResolution(connection));
    BuildContext build = new BuildContext(
        schema, buildId, buildTimeMillis, keepBuilds, scanCounts != null ? scanCounts : countEntries(entries));
    PCollectionList<Published> published = PCollectionList.empty(entries.getPipeline());
    for (IndexSink sink : sinks) {
      published = published.and(parts.apply("Write " + sink.describe(), sink.write(build)));
    }
    return published.apply("Every sink published", Flatten.pCollections());
  }

  /** Every input element is an entry: the scan count is the entry count, nothing was skipped or dead. */
  private static BuildContext.ScanCounts countEntries(PCollection<IndexEntry> entries) {
    PCollectionView<Map<String, Long>> tallies =
        entries
            .apply("Count entries", Count.globally())
            .apply("As scan count", MapElements.into(
                    TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptors.longs()))
                .via(n -> KV.of(ScanSegmentFn.Tally.ITEMS_SCANNED, n)))
            .apply("Scan counts", View.asMap());
    PCollectionView<Long> none =
        entries.getPipeline().apply("No dead letters", Create.of(0L)).apply("Dead letter count", View.asSingleton());
    return new BuildContext.ScanCounts(tallies, none);
  }
}
