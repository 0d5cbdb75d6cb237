package io.pagemark.transforms.sink.redis;

import com.google.auto.value.AutoValue;
import io.pagemark.change.ChangeDecoder;
import io.pagemark.commit.redis.RedisChangeApplier;
import io.pagemark.transforms.sink.file.StreamToWal;
import io.pagemark.transforms.source.ChangeStreamWrites;
import io.pagemark.transforms.source.DecodeChangesFn;
import io.pagemark.transforms.source.StreamResume;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PDone;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * Keeps a Redis index's live sorted sets current from a DynamoDB change stream: decodes each Kinesis record into index
 * changes ({@link ChangeDecoder}, as {@link StreamToWal} does), groups them by group key, and every flush interval
 * applies each group's changes with a {@link RedisChangeApplier} (idempotent, atomic per group, runs of equal sort keys
 * rebuilt); records that cannot be applied go to the list {@code P deadletters} with the reason. The resume positions
 * (one field {@code shard:ID} per Kinesis shard in the hash {@code P stream}) move only over records whose changes are
 * all applied, in Kinesis order, like the WAL's.
 *
 * <pre>{@code
 * pipeline.apply(KinesisIO.read()...)
 *     .apply(StreamToRedis.of(schema).to(RedisAddress.parse("redis://127.0.0.1:6379/0"), prefix)
 *         .withResume(new StreamResume(shards, target.shardPositions())));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration.
 */
@AutoValue
public abstract class StreamToRedis extends PTransform<PCollection<KinesisRecord>, PDone> {
  /** Dead letters kept in Redis, newest last. */
  static final long MAX_DEAD_LETTERS = 100_000;
  static final long DEFAULT_DEDUPE_MILLIS = TimeUnit.HOURS.toMillis(24);

  abstract KeySchema getSchema();

  abstract @Nullable RedisAddress getAddress();

  abstract @Nullable String getKeyPrefix();

  abstract @Nullable DynamoConnection getTies();

  abstract Duration getFlushInterval();

  abstract java.time.Duration getDedupeWindow();

  abstract boolean getCountRecords();

  abstract @Nullable StreamResume getResume();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setSchema(KeySchema schema);

    abstract Builder setAddress(RedisAddress address);

    abstract Builder setKeyPrefix(String prefix);

    abstract Builder setTies(DynamoConnection connection);

    abstract Builder setFlushInterval(Duration interval);

    abstract Builder setDedupeWindow(java.time.Duration window);

    abstract Builder setCountRecords(boolean count);

    abstract Builder setResume(StreamResume resume);

    abstract StreamToRedis build();
  }

  /**
   * Changes of an index with this key schema; {@link #to} required; flushes every second; ties left unknown.
   *
   * @throws NullPointerException if {@code schema} is null
   */
  public static StreamToRedis of(KeySchema schema) {
    return new AutoValue_StreamToRedis.Builder()
        .setSchema(Objects.requireNonNull(schema, "schema"))
        .setFlushInterval(Duration.standardSeconds(1))
        .setDedupeWindow(java.time.Duration.ofMillis(DEFAULT_DEDUPE_MILLIS))
        .setCountRecords(true)
        .build();
  }

  /**
   * The Redis index: its server and key prefix.
   *
   * @throws NullPointerException if the address is null
   * @throws IllegalArgumentException if {@link RedisLayout} refuses the prefix
   */
  public StreamToRedis to(RedisAddress a, String keyPrefix) {
    new RedisLayout(keyPrefix); // validates
    return toBuilder().setAddress(Objects.requireNonNull(a, "address")).setKeyPrefix(keyPrefix).build();
  }

  /**
   * Resolves DynamoDB's order of the runs of equal sort keys that changes touch by querying the GSI (as the backfill
   * and {@code commit --resolveTies} do); without it, such runs are marked unknown and lookups step around them.
   *
   * @throws NullPointerException if {@code c} is null
   */
  public StreamToRedis withTiesFrom(DynamoConnection c) {
    return toBuilder().setTies(Objects.requireNonNull(c, "connection")).build();
  }

  /**
   * How long changes wait, at most, before they are applied.
   *
   * @throws IllegalArgumentException unless positive
   */
  public StreamToRedis withFlushInterval(Duration d) {
    if (d.getMillis() < 1) {
      throw new IllegalArgumentException("flush interval must be positive, not " + d);
    }
    return toBuilder().setFlushInterval(d).build();
  }

  /**
   * How long the ledger remembers an item's version (changes older than that are stale); 24 h by default.
   *
   * @throws IllegalArgumentException unless at least a millisecond
   */
  public StreamToRedis withDedupeWindow(java.time.Duration d) {
    if (d.toMillis() < 1) {
      throw new IllegalArgumentException("dedupe window must be positive, not " + d);
    }
    return toBuilder().setDedupeWindow(d).build();
  }

  /**
   * Leaves the records and their decoded outcomes ({@code recordsRead}, {@code changes}, {@code added}, ...,
   * {@code deadLetters}) uncounted, for a pipeline where {@link StreamToWal} reads the same records and counts them.
   */
  public StreamToRedis withoutRecordCounts() {
    return toBuilder().setCountRecords(false).build();
  }

  /**
   * Where the Redis index's shard positions stood when this run started ({@link RedisStreamTarget#shardPositions()},
   * or none to apply every record read) and how to prove each shard's order; required.
   *
   * @throws NullPointerException if {@code resume} is null
   */
  public StreamToRedis withResume(StreamResume resume) {
    return toBuilder().setResume(Objects.requireNonNull(resume, "resume")).build();
  }

  @Override
  public void validate(@Nullable PipelineOptions options) {
    if (getAddress() == null) {
      throw new IllegalArgumentException("StreamToRedis needs a Redis index: to(address, keyPrefix)");
    }
    if (getResume() == null) {
      throw new IllegalArgumentException("StreamToRedis needs to know where its shards stand: withResume(...)");
    }
  }

  /**
   * The Redis index this stream writes, as its steps share it.
   *
   * @throws IllegalStateException if {@link #to} was not given
   */
  RedisStreamTarget target() {
    if (getAddress() == null) {
      throw new IllegalStateException("StreamToRedis needs a Redis index: to(address, keyPrefix)");
    }
    return RedisStreamTarget.builder()
        .setAddress(getAddress())
        .setKeyPrefix(getKeyPrefix())
        .setSchema(getSchema())
        .setTies(getTies())
        .setDedupeMillis(getDedupeWindow().toMillis())
        .build();
  }

  @Override
  public PDone expand(PCollection<KinesisRecord> records) {
    validate(null);
    RedisStreamTarget target = target();
    return ChangeStreamWrites.write(records, new DecodeChangesFn(new ChangeDecoder(getSchema()), getCountRecords()),
        getSchema(), getFlushInterval(), getResume(), new ChangeStreamWrites.Steps(
            "Apply to Redis sorted sets", new ApplyRedisChangesFn(target),
            "Push dead letters to Redis", new PushRedisDeadLettersFn(target),
            "Advance Redis shard positions", "redis", target.positionStore()));
  }
}
