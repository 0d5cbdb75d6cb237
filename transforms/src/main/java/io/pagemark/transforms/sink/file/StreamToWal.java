package io.pagemark.transforms.sink.file;

import com.google.auto.value.AutoValue;
import io.pagemark.change.ChangeDecoder;
import io.pagemark.commit.IndexCommit;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.transforms.source.ChangeStreamWrites;
import io.pagemark.transforms.source.DecodeChangesFn;
import io.pagemark.transforms.source.StreamResume;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * Keeps a file index's write-ahead log current from a DynamoDB change stream: decodes each Kinesis record into index
 * changes ({@link ChangeDecoder}), groups them by group key, and every flush interval appends each group's changes as
 * one WAL segment ({@link WalSegment}); records that cannot be applied go to dead-letter files with the reason. The
 * index files themselves are not touched: {@link IndexCommit} folds the segments in.
 *
 * <p>Writes fire on processing time (so a quiet stream's last changes are durable within a flush interval). The
 * resume positions ({@link Wal#shardPositions()}, one per Kinesis shard) move only over records whose changes and dead
 * letters are all durable, in the order Kinesis holds them, never with the watermark; records at or before the
 * positions this run started from are dropped unread.
 *
 * <pre>{@code
 * pipeline.apply(KinesisIO.read()...)
 *     .apply(StreamToWal.of(schema).withOutput("/data/index").withResume(new StreamResume(shards, positions)));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration.
 */
@AutoValue
public abstract class StreamToWal extends PTransform<PCollection<KinesisRecord>, PDone> {
  /** Namespace of the stream's Beam metrics (shared with the backfill's). */
  public static final String METRICS = "pagemark";

  abstract KeySchema getSchema();

  abstract @Nullable String getOutput();

  abstract Duration getFlushInterval();

  abstract @Nullable StreamResume getResume();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setSchema(KeySchema schema);

    abstract Builder setOutput(String root);

    abstract Builder setFlushInterval(Duration interval);

    abstract Builder setResume(StreamResume resume);

    abstract StreamToWal build();
  }

  /**
   * Changes of an index with this key schema; {@link #withOutput} required; flushes every second.
   *
   * @throws NullPointerException if {@code schema} is null
   */
  public static StreamToWal of(KeySchema schema) {
    return new AutoValue_StreamToWal.Builder()
        .setSchema(Objects.requireNonNull(schema, "schema"))
        .setFlushInterval(Duration.standardSeconds(1))
        .build();
  }

  /**
   * The index root directory (made absolute now, so that every worker writes the same place); the WAL is its
   * {@code wal/} folder.
   *
   * @throws NullPointerException if {@code root} is null
   * @throws IllegalArgumentException if it is blank
   */
  public StreamToWal withOutput(String root) {
    if (Objects.requireNonNull(root, "root").isBlank()) {
      throw new IllegalArgumentException("the output directory of StreamToWal must not be blank");
    }
    return toBuilder().setOutput(Path.of(root).toAbsolutePath().normalize().toString()).build();
  }

  /**
   * How long changes wait, at most, before they are appended (after the first change of a group's pending batch).
   *
   * @throws IllegalArgumentException unless positive
   */
  public StreamToWal withFlushInterval(Duration d) {
    if (d.getMillis() < 1) {
      throw new IllegalArgumentException("flush interval must be positive, not " + d);
    }
    return toBuilder().setFlushInterval(d).build();
  }

  /**
   * Where the WAL's shard positions stood when this run started ({@link Wal#shardPositions()}, or none to apply
   * every record read) and how to prove each shard's order; required.
   *
   * @throws NullPointerException if {@code resume} is null
   */
  public StreamToWal withResume(StreamResume resume) {
    return toBuilder().setResume(Objects.requireNonNull(resume, "resume")).build();
  }

  @Override
  public void validate(@Nullable PipelineOptions options) {
    if (getOutput() == null) {
      throw new IllegalArgumentException("StreamToWal needs an output directory: withOutput(...)");
    }
    if (getResume() == null) {
      throw new IllegalArgumentException("StreamToWal needs to know where its shards stand: withResume(...)");
    }
  }

  @Override
  public PDone expand(PCollection<KinesisRecord> records) {
    validate(null);
    String root = getOutput();
    return ChangeStreamWrites.write(records, new DecodeChangesFn(new ChangeDecoder(getSchema())), getSchema(),
        getFlushInterval(), getResume(), new ChangeStreamWrites.Steps(
            "Append to WAL", new AppendSegmentFn(getSchema(), root),
            "Write dead letters", new WriteWalDeadLettersFn(root),
            "Advance shard positions", "wal", new WalPositionStore(root)));
  }
}
