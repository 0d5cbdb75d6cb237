package io.pagemark.transforms;

import com.google.auto.value.AutoValue;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.source.ScanSegmentFn;
import io.pagemark.transforms.source.Segments;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Builds an index of a whole DynamoDB table: a parallel Scan of every item (each segment read to its end), grouped by
 * the group key, each group ordered exactly as a Query on the index returns it ({@link BuildIndex}), written to every
 * {@link IndexSink} and published atomically. Items the index cannot hold go to dead letters (JSON lines with the
 * reason), beside the build of the first sink that keeps them, or under {@link #withDeadLetterOutput}. Emits one
 * {@link Published} per sink.
 *
 * <pre>{@code
 * pipeline.apply(Backfill.of(connection, schema).withSink(WriteIndexFiles.to("/data/index")).withSegments(8));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration. The build id and time default to values fixed when
 * the transform is configured, so every worker of a run writes the same build.
 */
@AutoValue
public abstract class Backfill extends PTransform<PBegin, PCollection<Published>> {
  /** Namespace of the build's Beam metrics (items read, groups written, ...). */
  public static final String METRICS = "pagemark";
  static final int DEAD_LETTER_SHARDS = 4;

  abstract DynamoConnection getConnection();

  abstract int getSegments();

  abstract @Nullable String getDeadLetterOutput();

  abstract BuildIndex getBuildIndex();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setConnection(DynamoConnection connection);

    abstract Builder setSegments(int n);

    abstract Builder setDeadLetterOutput(String dir);

    abstract Builder setBuildIndex(BuildIndex buildIndex);

    abstract Backfill build();
  }

  /**
   * A backfill of the table the schema describes, with 8 scan segments, keeping the 3 newest builds, with no sink
   * yet.
   *
   * @throws NullPointerException if either argument is null
   */
  public static Backfill of(DynamoConnection connection, KeySchema schema) {
    Objects.requireNonNull(connection, "connection");
    return new AutoValue_Backfill.Builder()
        .setConnection(connection)
        .setSegments(8)
        .setBuildIndex(BuildIndex.of(Objects.requireNonNull(schema, "schema")).withTieResolution(connection))
        .build();
  }

  /** Also writes the build to this sink (at least one is required). */
  public Backfill withSink(IndexSink sink) {
    return toBuilder().setBuildIndex(getBuildIndex().withSink(sink)).build();
  }

  /**
   * Number of parallel Scan segments.
   *
   * @throws IllegalArgumentException unless 1 to 1,000,000
   */
  public Backfill withSegments(int n) {
    if (n < 1 || n > 1_000_000) {
      throw new IllegalArgumentException("segments must be between 1 and 1000000, not " + n);
    }
    return toBuilder().setSegments(n).build();
  }

  /** See {@link BuildIndex#withBuild}. */
  public Backfill withBuild(String id, long timeMillis) {
    return toBuilder().setBuildIndex(getBuildIndex().withBuild(id, timeMillis)).build();
  }

  /** See {@link BuildIndex#withKeepBuilds}. */
  public Backfill withKeepBuilds(int n) {
    return toBuilder().setBuildIndex(getBuildIndex().withKeepBuilds(n)).build();
  }

  /** See {@link io.pagemark.transforms.order.OrderGroups#withMaxPartEntries}. */
  public Backfill withMaxPartEntries(long n) {
    return toBuilder().setBuildIndex(getBuildIndex().withMaxPartEntries(n)).build();
  }

  /**
   * Where dead letters go when no sink keeps them beside its build: {@code DIR/BUILD_ID/part-N.jsonl}.
   *
   * @throws NullPointerException if {@code dir} is null
   */
  public Backfill withDeadLetterOutput(String dir) {
    return toBuilder().setDeadLetterOutput(Objects.requireNonNull(dir, "dir")).build();
  }

  /** The build's id, fixed when the transform was configured. */
  public String buildId() {
    return getBuildIndex().buildId();
  }

  /** The sinks, in the order they were added. */
  public List<IndexSink> sinks() {
    return getBuildIndex().sinks();
  }

  /**
   * Where this build's dead letters go: beside the build of the first sink that keeps them there, else under
   * {@link #withDeadLetterOutput}.
   *
   * @throws IllegalArgumentException if neither is given
   */
  public String deadLetterDirectory() {
    for (IndexSink sink : sinks()) {
      Optional<String> dir = sink.deadLetterDirectory(buildId());
      if (dir.isPresent()) {
        return dir.get();
      }
    }
    String deadLetterOutput = getDeadLetterOutput();
    if (deadLetterOutput == null) {
      throw new IllegalArgumentException(
          "no sink keeps dead letters beside its build: give the backfill withDeadLetterOutput(DIR)");
    }
    return Path.of(deadLetterOutput).toAbsolutePath().normalize().resolve(buildId()).toString();
  }

  @Override
  public void validate(@Nullable PipelineOptions options) {
    if (sinks().isEmpty()) {
      throw new IllegalArgumentException("Backfill needs at least one sink: withSink(...)");
    }
    deadLetterDirectory();
  }

  @Override
  public PCollection<Published> expand(PBegin begin) {
    validate(begin.getPipeline().getOptions()); // names what is missing before Beam trips over it
    int segments = getSegments();
    PCollectionTuple scanned =
        begin
            .apply("List segments", Segments.of(segments)) // one at a time to whichever worker is free
            .apply(
                "Scan segments",
                ParDo.of(new ScanSegmentFn(getConnection(), getBuildIndex().schema(), segments))
                    .withOutputTags(
                        ScanSegmentFn.ENTRIES,
                        TupleTagList.of(ScanSegmentFn.DEAD_LETTERS).and(ScanSegmentFn.TALLIES)));

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
            .apply("Write dead letters", ParDo.of(new WriteDeadLettersFn(deadLetterDirectory())))
            .setCoder(VarLongCoder.of())
            .apply("Count dead letters", Sum.longsGlobally().asSingletonView());

    PCollectionView<Map<String, Long>> tallies =
        scanned
            .get(ScanSegmentFn.TALLIES)
            .setCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
            .apply("Add up scan counts", Sum.longsPerKey())
            .apply("Scan counts", View.asMap());

    return scanned
        .get(ScanSegmentFn.ENTRIES)
        .setCoder(ListCoder.of(IndexEntryCoder.of()))
        .apply("Build index",
            getBuildIndex().withScanCounts(new BuildContext.ScanCounts(tallies, deadLetters)).fromBatches());
  }
}
