package io.pagemark.transforms.sink.file;

import io.pagemark.change.ChangeDecoder;
import io.pagemark.change.IndexChange;
import io.pagemark.commit.IndexCommit;
import io.pagemark.transforms.source.DecodeChangesFn;
import io.pagemark.transforms.source.IndexChangeCoder;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import io.pagemark.dynamo.KeySchema;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * Keeps a file index's write-ahead log current from a DynamoDB change stream: decodes each Kinesis record into index
 * changes ({@link ChangeDecoder}), groups them by group key, and every flush interval appends each group's changes as
 * one WAL segment ({@link WalSegment}); records that cannot be applied go to dead-letter files with the reason. The
 * index files themselves are not touched: {@link IndexCommit} folds the segments in.
 *
 * <p>Element timestamps are the records' Kinesis arrival times. Writes fire on processing time (so a quiet stream's
 * last changes are durable within a flush interval), while the resume position ({@link Wal#position()}) moves with
 * the watermark: when it passes the end of a one-second window of arrival times, every record of that window has been
 * written, and a restarted stream may begin there.
 *
 * <pre>{@code
 * pipeline.apply(KinesisIO.read()...).apply(StreamToWal.of(schema).withOutput("/data/index"));
 * }</pre>
 */
public final class StreamToWal extends PTransform<PCollection<KinesisRecord>, PCollection<Long>> {
  /** Namespace of the stream's Beam metrics (shared with the backfill's). */
  public static final String METRICS = "pagemark";
  public static final int DEAD_LETTER_SHARDS = 4;
  static final Duration POSITION_WINDOW = Duration.standardSeconds(1);

  private final KeySchema schema;
  private final String output;
  private final Duration flush;

  private StreamToWal(KeySchema schema, String output, Duration flush) {
    this.schema = schema;
    this.output = output;
    this.flush = flush;
  }

  /** Changes of an index with this key schema; output required; flushes every second. */
  public static StreamToWal of(KeySchema schema) {
    return new StreamToWal(Objects.requireNonNull(schema), null, Duration.standardSeconds(1));
  }

  /** The index root directory; the WAL is its {@code wal/} folder. */
  public StreamToWal withOutput(String root) {
    return new StreamToWal(schema, root, flush);
  }

  /** How long changes wait, at most, before they are appended (after the first change of a group's pending batch). */
  public StreamToWal withFlushInterval(Duration d) {
    if (d.getMillis() < 1) {
      throw new IllegalArgumentException("flush interval must be positive, not " + d);
    }
    return new StreamToWal(schema, output, d);
  }

  @Override
  public void validate(org.apache.beam.sdk.options.PipelineOptions options) {
    if (output == null || output.isBlank()) {
      throw new IllegalArgumentException("StreamToWal needs an output directory: withOutput(...)");
    }
  }

  @Override
  public PCollection<Long> expand(PCollection<KinesisRecord> records) {
    String root = Path.of(output).toAbsolutePath().normalize().toString();
    PCollectionTuple decoded =
        records.apply(
            "Decode change records",
            ParDo.of(new DecodeChangesFn(new ChangeDecoder(schema)))
                .withOutputTags(DecodeChangesFn.CHANGES,
                    TupleTagList.of(DecodeChangesFn.DEAD_LETTERS).and(DecodeChangesFn.RECORDS)));

    PCollection<Long> appended =
        decoded
            .get(DecodeChangesFn.CHANGES)
            .setCoder(IndexChangeCoder.of())
            .apply("Key by " + schema.groupAttribute(),
                WithKeys.<String, IndexChange>of(c -> groupId(c)).withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), IndexChangeCoder.of()))
            .apply("Flush every " + flush.getMillis() + " ms", flushWindow())
            .apply("Group by " + schema.groupAttribute(), GroupByKey.create())
            .apply("Append to WAL", ParDo.of(new AppendSegmentFn(schema, root)))
            .setCoder(VarLongCoder.of());

    PCollection<Long> deadLetters =
        decoded
            .get(DecodeChangesFn.DEAD_LETTERS)
            .setCoder(StringUtf8Coder.of())
            .apply("Shard dead letters",
                WithKeys.<Integer, String>of(l -> Math.floorMod(l.hashCode(), DEAD_LETTER_SHARDS))
                    .withKeyType(TypeDescriptors.integers()))
            .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()))
            .apply("Flush dead letters", flushWindow())
            .apply("Group dead letters", GroupByKey.create())
            .apply("Write dead letters", ParDo.of(new WriteWalDeadLettersFn(root)))
            .setCoder(VarLongCoder.of());

    PCollection<Long> read = decoded.get(DecodeChangesFn.RECORDS).setCoder(VarLongCoder.of());
    return PCollectionList.of(positionWindow(read, "records"))
        .and(positionWindow(appended, "appends"))
        .and(positionWindow(deadLetters, "dead letters"))
        .apply("Everything written", Flatten.pCollections())
        .apply("Per arrival second", Sum.longsGlobally().withoutDefaults())
        .apply("Advance resume position", ParDo.of(new AdvancePositionFn(root)))
        .setCoder(VarLongCoder.of());
  }

  /** Global window, fired on processing time; panes keep their earliest timestamp, which holds the watermark. */
  private <T> Window<T> flushWindow() {
    return flushWindow(flush);
  }

  public static <T> Window<T> flushWindow(Duration flush) {
    return Window.<T>into(new GlobalWindows())
        .triggering(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane().plusDelayOf(flush)))
        .withTimestampCombiner(TimestampCombiner.EARLIEST)
        .withAllowedLateness(Duration.ZERO)
        .withOnTimeBehavior(Window.OnTimeBehavior.FIRE_IF_NON_EMPTY)
        .discardingFiredPanes();
  }

  public static PCollection<Long> positionWindow(PCollection<Long> markers, String what) {
    return markers.apply(
        "Arrival windows of " + what,
        Window.<Long>into(FixedWindows.of(POSITION_WINDOW))
            .triggering(DefaultTrigger.of())
            .withAllowedLateness(Duration.ZERO)
            .discardingFiredPanes());
  }

  /** The grouping key: the group key's type and canonical bytes in hex ("1.0" and "1" are one group). */
  public static String groupId(IndexChange c) {
    return c.group().type().code() + ":" + java.util.HexFormat.of().formatHex(c.group().sortableBytes());
  }
}
