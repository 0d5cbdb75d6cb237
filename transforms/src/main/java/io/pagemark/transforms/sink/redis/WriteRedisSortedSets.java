package io.pagemark.transforms.sink.redis;

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
import java.io.IOException;
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
import redis.clients.jedis.Jedis;
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
public final class WriteRedisSortedSets extends PTransform<PCollection<OrderedPart>, PCollection<RedisLoadSummary>>
    implements IndexSink {
  public static final int DEFAULT_BATCH_SIZE = 1_000;
  public static final Duration DEFAULT_TEMPORARY_TTL = Duration.ofHours(6);
  public static final Duration DEFAULT_MAX_RETRY_TIME = Duration.ofSeconds(60);

  private final RedisAddress address;
  private final KeySchema schema;
  private final String keyPrefix;
  private final String buildId;
  private final long buildTimeMillis;
  private final int batchSize;
  private final Duration temporaryTtl;
  private final Duration maxRetryTime;
  private final boolean checkBeforeRun;

  private WriteRedisSortedSets(
      RedisAddress address,
      KeySchema schema,
      String keyPrefix,
      String buildId,
      long buildTimeMillis,
      int batchSize,
      Duration temporaryTtl,
      Duration maxRetryTime,
      boolean checkBeforeRun) {
    this.address = address;
    this.schema = schema;
    this.keyPrefix = keyPrefix;
    this.buildId = buildId;
    this.buildTimeMillis = buildTimeMillis;
    this.batchSize = batchSize;
    this.temporaryTtl = temporaryTtl;
    this.maxRetryTime = maxRetryTime;
    this.checkBeforeRun = checkBeforeRun;
  }

  /**
   * Writes to the Redis at {@code redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]}; throws {@link IllegalArgumentException}
   * for a malformed address.
   */
  public static WriteRedisSortedSets to(String redisUri) {
    return to(RedisAddress.parse(redisUri));
  }

  public static WriteRedisSortedSets to(RedisAddress address) {
    long now = System.currentTimeMillis();
    return new WriteRedisSortedSets(Objects.requireNonNull(address), null, null, BuildIds.newId(now), now,
        DEFAULT_BATCH_SIZE, DEFAULT_TEMPORARY_TTL, DEFAULT_MAX_RETRY_TIME, true);
  }

  /** The key schema of the index (required): names and types of the group key and of the stored attributes. */
  public WriteRedisSortedSets withSchema(KeySchema s) {
    return new WriteRedisSortedSets(address, Objects.requireNonNull(s), keyPrefix, buildId, buildTimeMillis,
        batchSize, temporaryTtl, maxRetryTime, checkBeforeRun);
  }

  /**
   * The prefix of every key of the index (default {@link RedisLayout#defaultPrefix}: {@code pagemark:TABLE:INDEX:}).
   * Two indexes in one database need prefixes of which neither starts with the other.
   */
  public WriteRedisSortedSets withKeyPrefix(String prefix) {
    new RedisLayout(prefix);
    return new WriteRedisSortedSets(address, schema, prefix, buildId, buildTimeMillis, batchSize, temporaryTtl,
        maxRetryTime, checkBeforeRun);
  }

  /** The build's id and time; use the file sink's so that both name the same build. */
  public WriteRedisSortedSets withBuild(String id, long timeMillis) {
    return new WriteRedisSortedSets(address, schema, keyPrefix, IndexLayout.checkBuildId(id), timeMillis, batchSize,
        temporaryTtl, maxRetryTime, checkBeforeRun);
  }

  /** Members per ZADD (1 to 100,000; default 1,000). Eight ZADDs are pipelined per round trip. */
  public WriteRedisSortedSets withBatchSize(int n) {
    if (n < 1 || n > 100_000) {
      throw new IllegalArgumentException("the Redis batch size must be between 1 and 100000, not " + n);
    }
    return new WriteRedisSortedSets(address, schema, keyPrefix, buildId, buildTimeMillis, n, temporaryTtl,
        maxRetryTime, checkBeforeRun);
  }

  /**
   * How long a temporary set and the build's lease live after the build last wrote them (default 6 hours): a crashed
   * build's sets disappear after it. Must exceed the longest pause between loading a group and publishing it.
   */
  public WriteRedisSortedSets withTemporaryTtl(Duration ttl) {
    if (ttl.toMillis() < 1_000) {
      throw new IllegalArgumentException("the temporary TTL must be at least 1 s, not " + ttl);
    }
    return new WriteRedisSortedSets(address, schema, keyPrefix, buildId, buildTimeMillis, batchSize, ttl,
        maxRetryTime, checkBeforeRun);
  }

  /** How long to keep retrying a Redis call that fails on a connection error (default 60 s). */
  public WriteRedisSortedSets withMaxRetryTime(Duration d) {
    if (d.isNegative()) {
      throw new IllegalArgumentException("the retry time must not be negative, not " + d);
    }
    return new WriteRedisSortedSets(address, schema, keyPrefix, buildId, buildTimeMillis, batchSize, temporaryTtl,
        d, checkBeforeRun);
  }

  /**
   * Whether {@link #validate} connects to Redis before the pipeline runs (default true), to fail at once when it is
   * unreachable or the prefix holds another index. Turn off where only the workers can reach Redis.
   */
  public WriteRedisSortedSets withCheckBeforeRun(boolean check) {
    return new WriteRedisSortedSets(address, schema, keyPrefix, buildId, buildTimeMillis, batchSize, temporaryTtl,
        maxRetryTime, check);
  }

  public String buildId() {
    return buildId;
  }

  @Override
  public String describe() {
    return "Redis at " + address + (keyPrefix == null ? "" : " under key prefix " + Json.quote(keyPrefix));
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

  /** The key prefix this transform writes under (the default one unless given). */
  public String keyPrefix() {
    if (keyPrefix != null) {
      return keyPrefix;
    }
    if (schema == null) {
      throw new IllegalStateException("WriteRedisSortedSets needs a key schema: withSchema(...)");
    }
    return RedisLayout.defaultPrefix(schema.table(), schema.indexName(), schema.groupAttribute(),
        schema.sortAttribute().name());
  }

  RedisTarget target() {
    RedisIndexMeta meta = RedisIndexMeta.schema(schema.table(), schema.indexName(), schema.groupAttribute(),
        schema.groupType(), schema.storedAttributes());
    return new RedisTarget(address, keyPrefix(), meta, buildId, buildTimeMillis, batchSize, temporaryTtl.toMillis(),
        maxRetryTime.toMillis());
  }

  /** Checks the configuration and, unless turned off, that Redis answers and the prefix is free or this index's. */
  @Override
  public void validate(PipelineOptions options) {
    if (schema == null) {
      throw new IllegalArgumentException("WriteRedisSortedSets needs a key schema: withSchema(...)");
    }
    if (!checkBeforeRun) {
      return;
    }
    RedisTarget target = target();
    try (Jedis j = address.connect("pagemark-check")) {
      target.checkSchema(j.hgetAll(target.layout().metaKey()));
    } catch (IOException e) {
      throw RedisFailure.of(e.getMessage() + " (given as --redis)", e);
    } catch (JedisException e) {
      throw RedisFailure.of("checking Redis at " + address + " failed: " + RedisAddress.rootMessage(e), e);
    }
  }

  @Override
  public PCollection<RedisLoadSummary> expand(PCollection<OrderedPart> parts) {
    RedisTarget target = target();
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
