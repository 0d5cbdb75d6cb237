package io.pagemark.transforms;

import io.pagemark.format.BuildIds;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import io.pagemark.transforms.source.ScanSegmentFn;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
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
  private WriteRedisSortedSets redis;

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
    return carry(new Backfill(connection, schema, root, segments, buildId, buildTimeMillis, keepBuilds, maxPartEntries));
  }

  /** Number of parallel Scan segments (1 to 1,000,000). */
  public Backfill withSegments(int n) {
    if (n < 1 || n > 1_000_000) {
      throw new IllegalArgumentException("segments must be between 1 and 1000000, not " + n);
    }
    return carry(new Backfill(connection, schema, output, n, buildId, buildTimeMillis, keepBuilds, maxPartEntries));
  }

  /** The build's id and time (for tests and schedulers that name builds themselves). */
  public Backfill withBuild(String id, long timeMillis) {
    return carry(new Backfill(
        connection, schema, output, segments, IndexLayout.checkBuildId(id), timeMillis, keepBuilds, maxPartEntries));
  }

  /** How many published builds to keep (the newest, and always the current one). */
  public Backfill withKeepBuilds(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("keepBuilds must be at least 1, not " + n);
    }
    return carry(new Backfill(connection, schema, output, segments, buildId, buildTimeMillis, n, maxPartEntries));
  }

  /**
   * The most entries one worker orders at once (default 200,000): bigger groups are split into parts of about this
   * size at sampled sort keys. A run of equal sort keys is never split, so one run must fit a worker.
   */
  public Backfill withMaxPartEntries(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("maxPartEntries must be at least 1, not " + n);
    }
    return carry(new Backfill(connection, schema, output, segments, buildId, buildTimeMillis, keepBuilds, n));
  }

  /**
   * Also load the index into Redis (or only, without {@link #withOutput}; dead letters then need
   * {@link #withDeadLetterOutput}).
   */
  public Backfill withRedis(WriteRedisSortedSets sink) {
    Backfill b = new Backfill(connection, schema, output, segments, buildId, buildTimeMillis, keepBuilds,
        maxPartEntries);
    b.redis = sink;
    b.deadLetterOutput = deadLetterOutput;
    return b;
  }

  /** Where dead letters go when there is no file index: {@code DIR/BUILD_ID/part-N.jsonl}. */
  public Backfill withDeadLetterOutput(String dir) {
    Backfill b = new Backfill(connection, schema, output, segments, buildId, buildTimeMillis, keepBuilds,
        maxPartEntries);
    b.redis = redis;
    b.deadLetterOutput = dir;
    return b;
  }

  private String deadLetterOutput;

  private Backfill carry(Backfill b) {
    b.redis = redis;
    b.deadLetterOutput = deadLetterOutput;
    return b;
  }

  public String buildId() {
    return buildId;
  }

  @Override
  public void validate(org.apache.beam.sdk.options.PipelineOptions options) {
    if ((output == null || output.isBlank()) && redis == null) {
      throw new IllegalArgumentException("Backfill needs an output directory (withOutput) or a Redis sink");
    }
    if ((output == null || output.isBlank()) && deadLetterOutput == null) {
      throw new IllegalArgumentException("Backfill without an output directory needs withDeadLetterOutput(...)");
    }
  }

  @Override
  public PCollection<BuildInfo.Counts> expand(PBegin begin) {
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

    String deadLetterDir =
        output != null
            ? new IndexLayout(Path.of(output).toAbsolutePath().normalize()).partialBuild(buildId)
                .resolve(IndexLayout.DEAD_LETTER).toString()
            : Path.of(deadLetterOutput).toAbsolutePath().normalize().resolve(buildId).toString();
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
            .apply("Write dead letters", ParDo.of(new WriteDeadLettersFn(deadLetterDir)))
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
        .setCoder(IndexEntryCoder.of())
        .apply(
            "Build index",
            BuildIndex.of(schema)
                .withTieResolution(connection)
                .withOutput(output)
                .withBuild(buildId, buildTimeMillis)
                .withKeepBuilds(keepBuilds)
                .withMaxPartEntries(maxPartEntries)
                .withScanCounts(new BuildIndex.ScanCounts(tallies, deadLetters))
                .withRedis(redis));
  }
}
