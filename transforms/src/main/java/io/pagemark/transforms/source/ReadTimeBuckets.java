package io.pagemark.transforms.source;

import com.google.auto.value.AutoValue;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyType;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Reads what a table's time buckets hold, without a Scan: lists the buckets from {@code from} to {@code to}
 * ({@link TimeBuckets}), spreads them over the workers, and Queries each bucket's partition of the bucket index to
 * its end. Each item becomes an upsert of its entry in the grouping index ({@link #CHANGES}), versioned with the
 * run's start time so that a later run's reading wins over an earlier one's; items the grouping index cannot hold
 * become dead letters ({@link #DEAD_LETTERS}, JSON lines with the reason).
 *
 * <p>A bucket query sees the items that are in the bucket now: an item deleted, or edited without changing its bucket
 * after it was read, is not seen again (a full backfill reconciles those). The bucket index must project the grouping
 * index's keys.
 *
 * <pre>{@code
 * PCollectionTuple read = pipeline.apply(ReadTimeBuckets.of(connection, schema)
 *     .withBucketIndex("byBucket", "bucket", KeyType.S).withBuckets(new TimeBuckets(15, "yyyyMMddHHmm"))
 *     .between(watermark.minus(overlap), now));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration.
 */
@AutoValue
public abstract class ReadTimeBuckets extends PTransform<PBegin, PCollectionTuple> {
  /** Namespace of the catch-up's Beam metrics (shared with the stream's and the backfill's). */
  public static final String METRICS = "pagemark";
  /** The counter of read capacity units DynamoDB reported, in thousandths. */
  public static final String READ_CAPACITY_MILLI = "readCapacityMilli";
  /** The upserts read. */
  public static final TupleTag<IndexChange> CHANGES = QueryBucketFn.CHANGES;
  /** Items the grouping index cannot hold, as JSON lines with the reason. */
  public static final TupleTag<String> DEAD_LETTERS = QueryBucketFn.DEAD_LETTERS;

  abstract DynamoConnection getConnection();

  abstract KeySchema getSchema();

  abstract @Nullable String getBucketIndex();

  abstract @Nullable String getBucketAttribute();

  abstract @Nullable KeyType getBucketType();

  abstract TimeBuckets getBuckets();

  abstract @Nullable Instant getFrom();

  abstract @Nullable Instant getTo();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setConnection(DynamoConnection c);

    abstract Builder setSchema(KeySchema s);

    abstract Builder setBucketIndex(String index);

    abstract Builder setBucketAttribute(String attribute);

    abstract Builder setBucketType(KeyType type);

    abstract Builder setBuckets(TimeBuckets buckets);

    abstract Builder setFrom(Instant from);

    abstract Builder setTo(Instant to);

    abstract ReadTimeBuckets build();
  }

  /**
   * A read of the table {@code schema} names, producing changes of the grouping index it describes; quarter-hour
   * buckets named {@code yyyyMMddHHmm} unless {@link #withBuckets} says otherwise. {@link #withBucketIndex} and
   * {@link #between} are required.
   *
   * @throws NullPointerException if an argument is null
   */
  public static ReadTimeBuckets of(DynamoConnection connection, KeySchema schema) {
    return new AutoValue_ReadTimeBuckets.Builder()
        .setConnection(Objects.requireNonNull(connection, "connection"))
        .setSchema(Objects.requireNonNull(schema, "schema"))
        .setBuckets(new TimeBuckets(15, "yyyyMMddHHmm"))
        .build();
  }

  /**
   * The GSI whose partition key is the bucket attribute, and that attribute's type (S or N).
   *
   * @throws IllegalArgumentException for a binary bucket key
   */
  public ReadTimeBuckets withBucketIndex(String index, String attribute, KeyType type) {
    if (Objects.requireNonNull(type, "type") == KeyType.B) {
      throw new IllegalArgumentException("a bucket key is a string or a number, not binary");
    }
    return toBuilder().setBucketIndex(Objects.requireNonNull(index, "index"))
        .setBucketAttribute(Objects.requireNonNull(attribute, "attribute")).setBucketType(type).build();
  }

  /** How buckets are cut and named. */
  public ReadTimeBuckets withBuckets(TimeBuckets buckets) {
    return toBuilder().setBuckets(Objects.requireNonNull(buckets, "buckets")).build();
  }

  /**
   * Reads the buckets from the one that holds {@code from} to the one that holds {@code to}; {@code to} is also the
   * version of every change read (a later run's changes win).
   *
   * @throws IllegalArgumentException if {@code from} is after {@code to}
   */
  public ReadTimeBuckets between(Instant from, Instant to) {
    if (from.isAfter(to)) {
      throw new IllegalArgumentException("the catch-up would start at " + from + ", after its end " + to);
    }
    return toBuilder().setFrom(from).setTo(to).build();
  }

  /** The bucket names this read queries, oldest first. */
  public List<String> bucketNames() {
    return getBuckets().between(getFrom(), getTo());
  }

  @Override
  public void validate(@Nullable PipelineOptions options) {
    if (getBucketIndex() == null) {
      throw new IllegalArgumentException("ReadTimeBuckets needs the bucket index: withBucketIndex(...)");
    }
    if (getFrom() == null) {
      throw new IllegalArgumentException("ReadTimeBuckets needs the time range: between(from, to)");
    }
  }

  @Override
  public PCollectionTuple expand(PBegin begin) {
    Version version = new Version(TimeUnit.MILLISECONDS.toMicros(getTo().toEpochMilli()), "");
    PCollectionTuple read = begin
        .apply("List buckets " + getBuckets().name(getFrom()) + ".." + getBuckets().name(getTo()),
            Create.of(bucketNames()).withCoder(StringUtf8Coder.of()))
        .apply("Spread buckets", Reshuffle.viaRandomKey())
        .apply("Query " + getBucketIndex(),
            ParDo.of(new QueryBucketFn(getConnection(), getSchema(), getBucketIndex(), getBucketAttribute(),
                    getBucketType(), version))
                .withOutputTags(CHANGES, TupleTagList.of(DEAD_LETTERS)));
    read.get(CHANGES).setCoder(IndexChangeCoder.of());
    read.get(DEAD_LETTERS).setCoder(StringUtf8Coder.of());
    return read;
  }
}
