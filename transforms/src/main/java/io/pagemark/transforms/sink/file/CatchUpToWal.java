package io.pagemark.transforms.sink.file;

import com.google.auto.value.AutoValue;
import io.pagemark.change.IndexChange;
import io.pagemark.commit.IndexCommit;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.transforms.order.OrderGroups;
import io.pagemark.transforms.source.IndexChangeCoder;
import io.pagemark.transforms.source.ReadTimeBuckets;
import io.pagemark.transforms.source.RecordRef;
import io.pagemark.transforms.source.StreamWindows;
import io.pagemark.wal.CatchUpWatermark;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Writes what {@link ReadTimeBuckets} read into a file index's write-ahead log, the same WAL {@link StreamToWal}
 * appends to: each group's upserts as one segment, dead letters as files beside them. Only when every segment and
 * dead-letter file is durable does it advance the catch-up watermark ({@link CatchUpWatermark}) to the end of the
 * read: the watermark step consumes the total of all writes, which a runner produces only after the last one. A run
 * that fails or is killed before leaves the watermark where it was. {@link IndexCommit} folds the segments in.
 *
 * <pre>{@code
 * pipeline.apply(ReadTimeBuckets.of(connection, schema)...between(from, now))
 *     .apply(CatchUpToWal.of(schema).withOutput("/data/index").withWatermark(now));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration.
 */
@AutoValue
public abstract class CatchUpToWal extends PTransform<PCollectionTuple, PCollection<Long>> {
  abstract KeySchema getSchema();

  abstract @Nullable String getOutput();

  abstract @Nullable Instant getWatermark();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setSchema(KeySchema schema);

    abstract Builder setOutput(String root);

    abstract Builder setWatermark(Instant at);

    abstract CatchUpToWal build();
  }

  /**
   * Changes of an index with this key schema; {@link #withOutput} required.
   *
   * @throws NullPointerException if {@code schema} is null
   */
  public static CatchUpToWal of(KeySchema schema) {
    return new AutoValue_CatchUpToWal.Builder().setSchema(Objects.requireNonNull(schema, "schema")).build();
  }

  /**
   * The directory whose {@code wal/} folder receives the changes: a file index's root, or the local WAL directory of
   * an index in S3 or PostgreSQL (made absolute now, so that every worker writes the same place).
   *
   * @throws IllegalArgumentException if it is blank
   */
  public CatchUpToWal withOutput(String root) {
    if (Objects.requireNonNull(root, "root").isBlank()) {
      throw new IllegalArgumentException("the output directory of CatchUpToWal must not be blank");
    }
    return toBuilder().setOutput(Path.of(root).toAbsolutePath().normalize().toString()).build();
  }

  /** Where the watermark moves once everything is written (without it, the watermark is left alone). */
  public CatchUpToWal withWatermark(Instant at) {
    return toBuilder().setWatermark(Objects.requireNonNull(at, "at")).build();
  }

  @Override
  public void validate(@Nullable PipelineOptions options) {
    if (getOutput() == null) {
      throw new IllegalArgumentException("CatchUpToWal needs an output directory: withOutput(...)");
    }
  }

  /** What the WAL's write steps name as the source of a change read from DynamoDB rather than from a Kinesis shard. */
  static final RecordRef FROM_DYNAMODB = new RecordRef("", "");

  @Override
  public PCollection<Long> expand(PCollectionTuple read) {
    KeySchema schema = getSchema();
    String root = getOutput();
    PCollection<RecordRef> appended = read.get(ReadTimeBuckets.CHANGES)
        .apply("Key by " + schema.groupAttribute(),
            MapElements.into(TypeDescriptors.kvs(TypeDescriptors.strings(),
                    TypeDescriptors.kvs(TypeDescriptor.of(RecordRef.class), TypeDescriptor.of(IndexChange.class))))
                .via((IndexChange c) -> KV.of(OrderGroups.groupId(c.group()), KV.of(FROM_DYNAMODB, c))))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), KvCoder.of(RecordRef.Coder.of(), IndexChangeCoder.of())))
        .apply("Group by " + schema.groupAttribute(), GroupByKey.create())
        .apply("Append to WAL", ParDo.of(new AppendSegmentFn(schema, root)))
        .setCoder(RecordRef.Coder.of());
    PCollection<RecordRef> deadLetters = read.get(ReadTimeBuckets.DEAD_LETTERS)
        .apply("Shard dead letters",
            MapElements.into(TypeDescriptors.kvs(TypeDescriptors.integers(),
                    TypeDescriptors.kvs(TypeDescriptor.of(RecordRef.class), TypeDescriptors.strings())))
                .via((String l) -> KV.of(Math.floorMod(l.hashCode(), StreamWindows.DEAD_LETTER_SHARDS),
                    KV.of(FROM_DYNAMODB, l))))
        .setCoder(KvCoder.of(VarIntCoder.of(), KvCoder.of(RecordRef.Coder.of(), StringUtf8Coder.of())))
        .apply("Group dead letters", GroupByKey.create())
        .apply("Write dead letters", ParDo.of(new WriteWalDeadLettersFn(root)))
        .setCoder(RecordRef.Coder.of());
    PCollection<Long> written = PCollectionList.of(appended).and(deadLetters)
        .apply("Everything written", Flatten.pCollections())
        .apply("Count written", Count.globally());
    if (getWatermark() == null) {
      return written;
    }
    return written.apply("Advance watermark to " + getWatermark(),
        ParDo.of(new AdvanceWatermarkFn(root, getWatermark().toEpochMilli()))).setCoder(VarLongCoder.of());
  }

  /** Runs once, after every write of the run (it consumes their total): moves the catch-up watermark. */
  static final class AdvanceWatermarkFn extends DoFn<Long, Long> {
    private final String root;
    private final long watermarkMillis;

    AdvanceWatermarkFn(String root, long watermarkMillis) {
      this.root = root;
      this.watermarkMillis = watermarkMillis;
    }

    @ProcessElement
    public void process(@Element Long written, OutputReceiver<Long> out) throws java.io.IOException {
      new CatchUpWatermark(Path.of(root)).advance(Instant.ofEpochMilli(watermarkMillis));
      out.output(written);
    }
  }
}
