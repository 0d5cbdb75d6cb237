package io.pagemark.transforms;

import com.google.auto.value.AutoValue;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildIds;
import io.pagemark.format.IndexLayout;
import io.pagemark.transforms.order.OrderGroups;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.order.TotalFn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.MapCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.checkerframework.checker.nullness.qual.Nullable;

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
 * <p>A source that reads entries a page at a time hands over each page as one list: {@code
 * pages.apply(build.fromBatches())} builds the same index at less cost per entry.
 *
 * <p>Immutable: every {@code withX} returns a new configuration. The build id and time default to values fixed when
 * the transform is configured, so that every worker and every sink names the same build.
 */
@AutoValue
public abstract class BuildIndex extends PTransform<PCollection<IndexEntry>, PCollection<Published>> {
  abstract OrderGroups getOrder();

  abstract List<IndexSink> getSinks();

  abstract String getBuildId();

  abstract long getBuildTimeMillis();

  abstract int getKeepBuilds();

  abstract BuildContext.@Nullable ScanCounts getScanCounts();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setOrder(OrderGroups order);

    abstract Builder setSinks(List<IndexSink> sinks);

    abstract Builder setBuildId(String id);

    abstract Builder setBuildTimeMillis(long millis);

    abstract Builder setKeepBuilds(int n);

    abstract Builder setScanCounts(BuildContext.ScanCounts counts);

    abstract BuildIndex build();
  }

  /**
   * A build of entries with this key schema, with no sink yet; keeps 3 builds; parts of
   * {@value OrderGroups#DEFAULT_MAX_PART_ENTRIES} entries.
   *
   * @throws NullPointerException if {@code schema} is null
   */
  public static BuildIndex of(KeySchema schema) {
    long now = System.currentTimeMillis();
    return new AutoValue_BuildIndex.Builder()
        .setOrder(OrderGroups.of(schema))
        .setSinks(List.of())
        .setBuildId(BuildIds.newId(now))
        .setBuildTimeMillis(now)
        .setKeepBuilds(3)
        .build();
  }

  /**
   * Learns DynamoDB's order of equal sort keys by querying the schema's index through this connection.
   *
   * @throws NullPointerException if {@code connection} is null
   */
  public BuildIndex withTieResolution(DynamoConnection connection) {
    return toBuilder().setOrder(getOrder().withTieResolution(connection)).build();
  }

  /**
   * Also writes the build to this sink (at least one is required).
   *
   * @throws NullPointerException if {@code sink} is null
   */
  public BuildIndex withSink(IndexSink sink) {
    List<IndexSink> more = new ArrayList<>(getSinks());
    more.add(Objects.requireNonNull(sink, "sink"));
    return toBuilder().setSinks(List.copyOf(more)).build();
  }

  /**
   * The build's id and time (for tests and schedulers that name builds themselves).
   *
   * @throws IllegalArgumentException if the id is not a valid build id ({@link IndexLayout#checkBuildId})
   */
  public BuildIndex withBuild(String id, long timeMillis) {
    return toBuilder().setBuildId(IndexLayout.checkBuildId(id)).setBuildTimeMillis(timeMillis).build();
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
    return toBuilder().setKeepBuilds(n).build();
  }

  /** See {@link OrderGroups#withMaxPartEntries}. */
  public BuildIndex withMaxPartEntries(long n) {
    return toBuilder().setOrder(getOrder().withMaxPartEntries(n)).build();
  }

  /**
   * The source's counts, so that the build accounts for items that did not become entries. Without them every entry
   * counts as an item scanned, and nothing as skipped or dead.
   *
   * @throws NullPointerException if {@code counts} is null
   */
  public BuildIndex withScanCounts(BuildContext.ScanCounts counts) {
    return toBuilder().setScanCounts(Objects.requireNonNull(counts, "counts")).build();
  }

  /** The key schema of the entries. */
  public KeySchema schema() {
    return getOrder().getSchema();
  }

  /** The build's id, fixed when the transform was configured. */
  public String buildId() {
    return getBuildId();
  }

  /** The sinks, in the order they were added. */
  public List<IndexSink> sinks() {
    return getSinks();
  }

  @Override
  public void validate(@Nullable PipelineOptions options) {
    if (getSinks().isEmpty()) {
      throw new IllegalArgumentException("BuildIndex needs at least one sink: withSink(...)");
    }
    getSinks().forEach(IndexSink::validate);
  }

  /**
   * This build, of entries that come in lists (a source's pages of them, in any sizes): the same build as of the
   * lists' entries one by one, and cheaper to run, since a runner pays for every element it hands a step
   * ({@link OrderGroups#batchesWithEntryCounts}). {@link Backfill} hands it each Scan page's entries as one list.
   */
  public PTransform<PCollection<List<IndexEntry>>, PCollection<Published>> fromBatches() {
    return new FromBatches(this);
  }

  /** {@link #fromBatches}. */
  private static final class FromBatches extends PTransform<PCollection<List<IndexEntry>>, PCollection<Published>> {
    private final BuildIndex build;

    FromBatches(BuildIndex build) {
      this.build = build;
    }

    @Override
    public void validate(@Nullable PipelineOptions options) {
      build.validate(options);
    }

    @Override
    public PCollection<Published> expand(PCollection<List<IndexEntry>> batches) {
      return build.build(batches, build.getOrder().batchesWithEntryCounts());
    }
  }

  @Override
  public PCollection<Published> expand(PCollection<IndexEntry> entries) {
    return build(entries, getOrder().withEntryCounts());
  }

  /** Orders the input's entries with {@code order} and has every sink write and publish them. */
  private <T> PCollection<Published> build(PCollection<T> input, PTransform<PCollection<T>, PCollectionTuple> order) {
    validate(input.getPipeline().getOptions()); // without a sink, Beam would fail first, on the output's coder
    BuildContext.ScanCounts counts = getScanCounts();
    // Counted by the ordering where it blocks entries, not by a step of its own: on Flink's batch runner a step with
    // two outputs has two readers, is not chained to the ordering, and every entry is serialized after it.
    PCollectionTuple ordered = input.apply("Order groups", order);
    PCollection<OrderedPart> parts = ordered.get(OrderGroups.PARTS);
    if (counts == null) {
      counts = scanCounts(ordered.get(OrderGroups.ENTRY_COUNTS));
    }
    BuildContext build = new BuildContext(schema(), getBuildId(), getBuildTimeMillis(), getKeepBuilds(), counts);
    PCollectionList<Published> published = PCollectionList.empty(input.getPipeline());
    for (IndexSink sink : getSinks()) {
      published = published.and(parts.apply("Write " + sink.describe(), sink.write(build)));
    }
    return published.apply("Every sink published", Flatten.pCollections());
  }

  /** Without the source's counts every entry was an item scanned: nothing was skipped or dead. */
  private static BuildContext.ScanCounts scanCounts(PCollection<Long> entryCounts) {
    PCollectionView<Map<String, Long>> tallies =
        entryCounts.apply("Scan counts", Combine.globally(new ItemsScannedFn()).asSingletonView());
    return new BuildContext.ScanCounts(tallies, null);
  }

  /** Adds up entry counts into the tallies of a scan of that many items. */
  static final class ItemsScannedFn extends TotalFn<Map<String, Long>> {
    @Override
    protected Map<String, Long> of(long n) {
      return Map.of(BuildContext.ScanCounts.ITEMS_SCANNED, n);
    }

    @Override
    protected Coder<Map<String, Long>> outputCoder() {
      return MapCoder.of(StringUtf8Coder.of(), VarLongCoder.of());
    }
  }
}
