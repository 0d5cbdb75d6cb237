package io.pagemark.transforms.sink.redis;

import com.google.auto.value.AutoValue;
import io.pagemark.commit.redis.RedisFailure;
import io.pagemark.format.BuildIds;
import io.pagemark.transforms.order.OrderedPart;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.Json;
import io.pagemark.transforms.BuildContext;
import io.pagemark.transforms.IndexSink;
import io.pagemark.transforms.Published;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;
import java.time.Duration;
import java.util.Objects;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.transforms.Wait;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.checkerframework.checker.nullness.qual.Nullable;
import io.pagemark.format.redis.RedisNodes;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Writes an index into Redis: one sorted set per group, members encoded so that Redis's rank order is the index's
 * order (see {@link io.pagemark.format.redis.SortedSetMember}), read back by {@link io.pagemark.lookup.Indexes#open(String)}. Each
 * {@link OrderedPart} is loaded with pipelined ZADD batches into the build's temporary set of its group (parts load in
 * parallel); once all parts of a group are loaded, the temporary set is checked and RENAMEd over the live one, so
 * readers see each group's old or new set, never a partial one. Finally the build is recorded, groups the table no
 * longer has are removed, and stale temporary sets of other builds are cleaned up. Emits one
 * {@link RedisLoadSummary}.
 *
 * <pre>{@code
 * parts.apply("Write Redis sorted sets",
 *     WriteRedisSortedSets.to("redis://127.0.0.1:6379/0").withSchema(schema).withBuild(buildId, buildTime));
 * }</pre>
 *
 * <p>Immutable: every {@code withX} returns a new configuration. One build at a time per key prefix. Connection drops
 * and Redis restarts are retried (see {@link #withMaxRetryTime}); a set that Redis lost after it was loaded (a
 * restart without persistence) is never published: the pipeline fails and says so.
 */
@AutoValue
public abstract class WriteRedisSortedSets
    extends PTransform<PCollection<OrderedPart>, PCollection<RedisLoadSummary>> implements IndexSink {
  public static final int DEFAULT_BATCH_SIZE = 1_000;
  public static final Duration DEFAULT_TEMPORARY_TTL = Duration.ofHours(6);
  public static final Duration DEFAULT_MAX_RETRY_TIME = Duration.ofSeconds(60);

  abstract RedisAddress getAddress();

  abstract @Nullable KeySchema getSchema();

  abstract @Nullable String getKeyPrefix();

  abstract String getBuildId();

  abstract long getBuildTimeMillis();

  abstract int getBatchSize();

  abstract Duration getTemporaryTtl();

  abstract Duration getMaxRetryTime();

  abstract boolean getCheckBeforeRun();

  abstract @Nullable Long getLoadLeaseToken();

  abstract Builder toBuilder();

  @AutoValue.Builder
  abstract static class Builder {
    abstract Builder setAddress(RedisAddress address);

    abstract Builder setSchema(KeySchema schema);

    abstract Builder setKeyPrefix(String prefix);

    abstract Builder setBuildId(String id);

    abstract Builder setBuildTimeMillis(long millis);

    abstract Builder setBatchSize(int n);

    abstract Builder setTemporaryTtl(Duration ttl);

    abstract Builder setMaxRetryTime(Duration d);

    abstract Builder setCheckBeforeRun(boolean check);

    abstract Builder setLoadLeaseToken(@Nullable Long token);

    abstract WriteRedisSortedSets build();
  }

  /**
   * Writes to the Redis at {@code redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]}.
   *
   * @throws IllegalArgumentException if the address is malformed
   */
  public static WriteRedisSortedSets to(String redisUri) {
    return to(RedisAddress.parse(redisUri));
  }

  /**
   * Writes to this Redis; a new build id and time are fixed now (see {@link #withBuild}).
   *
   * @throws NullPointerException if {@code address} is null
   */
  public static WriteRedisSortedSets to(RedisAddress address) {
    long now = System.currentTimeMillis();
    return new AutoValue_WriteRedisSortedSets.Builder()
        .setAddress(Objects.requireNonNull(address, "address"))
        .setBuildId(BuildIds.newId(now))
        .setBuildTimeMillis(now)
        .setBatchSize(DEFAULT_BATCH_SIZE)
        .setTemporaryTtl(DEFAULT_TEMPORARY_TTL)
        .setMaxRetryTime(DEFAULT_MAX_RETRY_TIME)
        .setCheckBeforeRun(true)
        .build();
  }

  /** The key schema of the index (required): names and types of the group key and of the stored attributes. */
  public WriteRedisSortedSets withSchema(KeySchema s) {
    return toBuilder().setSchema(Objects.requireNonNull(s, "schema")).build();
  }

  /**
   * The prefix of every key of the index (default {@link RedisLayout#defaultPrefix}: {@code pagemark:TABLE:INDEX:}).
   * Two indexes in one database need prefixes of which neither starts with the other.
   *
   * @throws IllegalArgumentException if {@link RedisLayout} refuses the prefix
   */
  public WriteRedisSortedSets withKeyPrefix(String prefix) {
    new RedisLayout(prefix);
    return toBuilder().setKeyPrefix(prefix).build();
  }

  /**
   * The build's id and time; use the file sink's so that both name the same build.
   *
   * @throws IllegalArgumentException if the id is not a valid build id ({@link IndexLayout#checkBuildId})
   */
  public WriteRedisSortedSets withBuild(String id, long timeMillis) {
    return toBuilder().setBuildId(IndexLayout.checkBuildId(id)).setBuildTimeMillis(timeMillis).build();
  }

  /**
   * Members per ZADD (default 1,000); eight ZADDs are pipelined per round trip.
   *
   * @throws IllegalArgumentException unless 1 to 100,000
   */
  public WriteRedisSortedSets withBatchSize(int n) {
    if (n < 1 || n > 100_000) {
      throw new IllegalArgumentException("the Redis batch size must be between 1 and 100000, not " + n);
    }
    return toBuilder().setBatchSize(n).build();
  }

  /**
   * How long a temporary set and the build's lease live after the build last wrote them (default 6 hours): a crashed
   * build's sets disappear after it. Must exceed the longest pause between loading a group and publishing it.
   *
   * @throws IllegalArgumentException if under one second
   */
  public WriteRedisSortedSets withTemporaryTtl(Duration ttl) {
    if (ttl.toMillis() < 1_000) {
      throw new IllegalArgumentException("the temporary TTL must be at least 1 s, not " + ttl);
    }
    return toBuilder().setTemporaryTtl(ttl).build();
  }

  /**
   * How long to keep retrying a Redis call that fails on a connection error (default 60 s): the waits between its
   * retries (Beam's {@code FluentBackoff}, from 50 ms up to 2 s each) add up to at most this.
   *
   * @throws IllegalArgumentException if negative
   */
  public WriteRedisSortedSets withMaxRetryTime(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("the retry time must not be negative, not " + d);
    }
    return toBuilder().setMaxRetryTime(d).build();
  }

  /**
   * Whether {@link #validate} connects to Redis before the pipeline runs (default true), to fail at once when it is
   * unreachable or the prefix holds another index. Turn off where only the workers can reach Redis.
   */
  public WriteRedisSortedSets withCheckBeforeRun(boolean check) {
    return toBuilder().setCheckBeforeRun(check).build();
  }

  /**
   * Publishes only while the prefix's load lease holds {@code token} ({@link RedisLoadLease#token()}): each group's
   * publish, the record of the build and the removal of other builds' groups check it first, so a backfill whose
   * lease another one took over fails instead of publishing. Without it (the default) nothing is checked.
   */
  public WriteRedisSortedSets withLoadLease(long token) {
    return toBuilder().setLoadLeaseToken(token).build();
  }

  /** The build's id, fixed when the transform was configured. */
  public String buildId() {
    return getBuildId();
  }

  @Override
  public String describe() {
    return "Redis at " + getAddress()
        + (getKeyPrefix() == null ? "" : " under key prefix " + Json.quote(getKeyPrefix()));
  }

  /** As an {@link IndexSink}: this sink with the build's schema, id and time, its summary as a {@link Published}. */
  @Override
  public PTransform<PCollection<OrderedPart>, PCollection<Published>> write(BuildContext build) {
    WriteRedisSortedSets configured =
        withSchema(build.schema()).withBuild(build.buildId(), build.buildTimeMillis());
    return new PTransform<>() {
      @Override
      public PCollection<Published> expand(PCollection<OrderedPart> parts) {
        return parts
            .apply("Load Redis sorted sets", configured)
            .apply("Published", MapElements.into(TypeDescriptor.of(Published.class))
                .via((RedisLoadSummary r) -> new Published("Redis at " + r.address(), r.buildId(), r.groups(),
                    r.entries(), r.line())))
            .setCoder(SerializableCoder.of(Published.class));
      }
    };
  }

  /**
   * The key prefix this transform writes under (the default one unless given).
   *
   * @throws IllegalStateException if no prefix was given and there is no schema yet to derive it from
   */
  public String keyPrefix() {
    if (getKeyPrefix() != null) {
      return getKeyPrefix();
    }
    KeySchema schema = getSchema();
    if (schema == null) {
      throw new IllegalStateException("WriteRedisSortedSets needs a key schema: withSchema(...)");
    }
    return RedisLayout.defaultPrefix(schema.table(), schema.indexName(), schema.groupAttribute(),
        schema.sortAttribute().name());
  }

  RedisTarget target() {
    KeySchema schema = Objects.requireNonNull(getSchema(), "schema");
    return RedisTarget.builder()
        .setAddress(getAddress())
        .setKeyPrefix(keyPrefix())
        .setSchema(RedisIndexMeta.schema(schema.table(), schema.indexName(), schema.groupAttribute(),
            schema.groupType(), schema.storedAttributes()))
        .setBuildId(getBuildId())
        .setBuildTimeMillis(getBuildTimeMillis())
        .setBatchSize(getBatchSize())
        .setTemporaryTtlMillis(getTemporaryTtl().toMillis())
        .setMaxRetryMillis(getMaxRetryTime().toMillis())
        .setLoadLeaseToken(getLoadLeaseToken())
        .build();
  }

  /** Checks the configuration and, unless turned off, that Redis answers and the prefix is free or this index's. */
  @Override
  public void validate(@Nullable PipelineOptions options) {
    if (getSchema() == null) {
      throw new IllegalArgumentException("WriteRedisSortedSets needs a key schema: withSchema(...)");
    }
    if (!getCheckBeforeRun()) {
      return;
    }
    RedisTarget target = target();
    RedisAddress address = getAddress();
    try (RedisNodes n = address.nodes("pagemark-check")) {
      target.checkSchema(target.readMeta(n));
    } catch (JedisConnectionException e) {
      throw RedisFailure.of(address.unreachable(e).getMessage() + " (given as --redis)", e);
    } catch (JedisException e) {
      throw RedisFailure.of("checking Redis at " + address + " failed: " + RedisAddress.rootMessage(e), e);
    }
  }

  @Override
  public PCollection<RedisLoadSummary> expand(PCollection<OrderedPart> parts) {
    RedisTarget target = target();
    String buildId = target.buildId();
    Pipeline p = parts.getPipeline();
    PCollection<String> prepared =
        p.apply("Redis build id", Create.of(buildId).withCoder(StringUtf8Coder.of()))
            .apply("Record the index in Redis", ParDo.of(new PrepareRedisFn(target)));

    PCollection<GroupPublished> published =
        parts
            .apply("Wait for Redis", Wait.on(prepared))
            .setCoder(parts.getCoder())
            .apply("Load parts into temporary sets", ParDo.of(new LoadPartFn(target)))
            .setCoder(KvCoder.of(ByteArrayCoder.of(), SerializableCoder.of(PartLoaded.class)))
            .apply("Group loaded parts by group", GroupByKey.create())
            .apply("Publish groups by RENAME", ParDo.of(new PublishGroupFn(target)))
            .setCoder(SerializableCoder.of(GroupPublished.class));

    PCollectionView<Iterable<GroupPublished>> view = published.apply("Published groups", View.asIterable());
    return p.apply("Redis finish trigger", Create.of(buildId).withCoder(StringUtf8Coder.of()))
        .apply("Wait for the last group", Wait.on(published, prepared))
        .setCoder(StringUtf8Coder.of())
        .apply("Finish the Redis build", ParDo.of(new FinishRedisBuildFn(target, view)).withSideInputs(view))
        .setCoder(SerializableCoder.of(RedisLoadSummary.class));
  }
}
