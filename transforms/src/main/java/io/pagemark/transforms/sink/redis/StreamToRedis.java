package io.pagemark.transforms.sink.redis;

import io.pagemark.change.ChangeDecoder;
import io.pagemark.change.IndexChange;
import io.pagemark.commit.redis.RedisChangeApplier;
import io.pagemark.transforms.sink.file.StreamToWal;
import io.pagemark.transforms.source.DecodeChangesFn;
import io.pagemark.transforms.source.IndexChangeCoder;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
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
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * Keeps a Redis index's live sorted sets current from a DynamoDB change stream: decodes each Kinesis record into index
 * changes ({@link ChangeDecoder}, as {@link StreamToWal} does), groups them by group key, and every flush interval
 * applies each group's changes with a {@link RedisChangeApplier} (idempotent, atomic per group, runs of equal sort keys
 * rebuilt); records that cannot be applied go to the list {@code P deadletters} with the reason. The resume position
 * ({@code position} in the hash {@code P stream}) moves with the watermark, like the WAL's.
 *
 * <pre>{@code
 * pipeline.apply(KinesisIO.read()...)
 *     .apply(StreamToRedis.of(schema).to(RedisAddress.parse("redis://127.0.0.1:6379/0"), prefix));
 * }</pre>
 */
public final class StreamToRedis extends PTransform<PCollection<KinesisRecord>, PCollection<Long>> {
  /** Dead letters kept in Redis, newest last. */
  static final long MAX_DEAD_LETTERS = 100_000;
  static final long DEFAULT_DEDUPE_MILLIS = TimeUnit.HOURS.toMillis(24);

  private final KeySchema schema;
  private final RedisAddress address;
  private final String prefix;
  private final DynamoConnection ties;
  private final Duration flush;
  private final long dedupeMillis;
  private final boolean countRecords;

  private StreamToRedis(KeySchema schema, RedisAddress address, String prefix, DynamoConnection ties, Duration flush,
      long dedupeMillis, boolean countRecords) {
    this.schema = schema;
    this.address = address;
    this.prefix = prefix;
    this.ties = ties;
    this.flush = flush;
    this.dedupeMillis = dedupeMillis;
    this.countRecords = countRecords;
  }

  /** Changes of an index with this key schema; {@link #to} required; flushes every second; ties left unknown. */
  public static StreamToRedis of(KeySchema schema) {
    return new StreamToRedis(Objects.requireNonNull(schema), null, null, null, Duration.standardSeconds(1),
        DEFAULT_DEDUPE_MILLIS, true);
  }

  /** The Redis index: its server and key prefix. */
  public StreamToRedis to(RedisAddress a, String keyPrefix) {
    new RedisLayout(keyPrefix); // validates
    return new StreamToRedis(schema, Objects.requireNonNull(a), keyPrefix, ties, flush, dedupeMillis, countRecords);
  }

  /**
   * Resolves DynamoDB's order of the runs of equal sort keys that changes touch by querying the GSI (as the backfill
   * and {@code commit --resolveTies} do); without it, such runs are marked unknown and lookups step around them.
   */
  public StreamToRedis withTiesFrom(DynamoConnection c) {
    return new StreamToRedis(schema, address, prefix, c, flush, dedupeMillis, countRecords);
  }

  /** How long changes wait, at most, before they are applied. */
  public StreamToRedis withFlushInterval(Duration d) {
    if (d.getMillis() < 1) {
      throw new IllegalArgumentException("flush interval must be positive, not " + d);
    }
    return new StreamToRedis(schema, address, prefix, ties, d, dedupeMillis, countRecords);
  }

  /** How long the ledger remembers an item's version (changes older than that are stale); 24 h by default. */
  public StreamToRedis withDedupeWindow(java.time.Duration d) {
    if (d.toMillis() < 1) {
      throw new IllegalArgumentException("dedupe window must be positive, not " + d);
    }
    return new StreamToRedis(schema, address, prefix, ties, flush, d.toMillis(), countRecords);
  }

  /**
   * Leaves the records and their decoded outcomes ({@code recordsRead}, {@code changes}, {@code added}, ...,
   * {@code deadLetters}) uncounted, for a pipeline where {@link StreamToWal} reads the same records and counts them.
   */
  public StreamToRedis withoutRecordCounts() {
    return new StreamToRedis(schema, address, prefix, ties, flush, dedupeMillis, false);
  }

  @Override
  public void validate(org.apache.beam.sdk.options.PipelineOptions options) {
    if (address == null) {
      throw new IllegalArgumentException("StreamToRedis needs a Redis index: to(address, keyPrefix)");
    }
  }

  @Override
  public PCollection<Long> expand(PCollection<KinesisRecord> records) {
    RedisStreamTarget target = new RedisStreamTarget(address, prefix, schema, ties, dedupeMillis);
    PCollectionTuple decoded =
        records.apply(
            "Decode change records",
            ParDo.of(new DecodeChangesFn(new ChangeDecoder(schema), countRecords))
                .withOutputTags(DecodeChangesFn.CHANGES,
                    TupleTagList.of(DecodeChangesFn.DEAD_LETTERS).and(DecodeChangesFn.RECORDS)));

    PCollection<Long> applied =
        decoded
            .get(DecodeChangesFn.CHANGES)
            .setCoder(IndexChangeCoder.of())
            .apply("Key by " + schema.groupAttribute(),
                WithKeys.<String, IndexChange>of(StreamToWal::groupId).withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), IndexChangeCoder.of()))
            .apply("Flush every " + flush.getMillis() + " ms", StreamToWal.flushWindow(flush))
            .apply("Group by " + schema.groupAttribute(), GroupByKey.create())
            .apply("Apply to Redis sorted sets", ParDo.of(new ApplyRedisChangesFn(target)))
            .setCoder(VarLongCoder.of());

    PCollection<Long> deadLetters =
        decoded
            .get(DecodeChangesFn.DEAD_LETTERS)
            .setCoder(StringUtf8Coder.of())
            .apply("Shard dead letters",
                WithKeys.<Integer, String>of(l -> Math.floorMod(l.hashCode(), StreamToWal.DEAD_LETTER_SHARDS))
                    .withKeyType(TypeDescriptors.integers()))
            .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()))
            .apply("Flush dead letters", StreamToWal.flushWindow(flush))
            .apply("Group dead letters", GroupByKey.create())
            .apply("Push dead letters to Redis", ParDo.of(new PushRedisDeadLettersFn(target)))
            .setCoder(VarLongCoder.of());

    PCollection<Long> read = decoded.get(DecodeChangesFn.RECORDS).setCoder(VarLongCoder.of());
    return PCollectionList.of(StreamToWal.positionWindow(read, "records"))
        .and(StreamToWal.positionWindow(applied, "applied"))
        .and(StreamToWal.positionWindow(deadLetters, "dead letters"))
        .apply("Everything applied", Flatten.pCollections())
        .apply("Per arrival second", Sum.longsGlobally().withoutDefaults())
        .apply("Advance Redis resume position", ParDo.of(new AdvanceRedisPositionFn(target)))
        .setCoder(VarLongCoder.of());
  }
}
