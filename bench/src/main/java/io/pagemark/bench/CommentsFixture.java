package io.pagemark.bench;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.testing.RedisServer;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.sink.file.WriteIndexFiles;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import redis.clients.jedis.Jedis;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The demo's {@code comments} table on DynamoDB Local with every comment in one product (so that its group is deep
 * enough for the deepest page), loaded with {@link SampleComments#load} and indexed by pagemark's {@link BuildIndex}
 * on the DirectRunner, fed with the keys of the loaded items (the entries a backfill's scan would read, without
 * scanning them back) and with DynamoDB's order of equal sort keys resolved against the table, as a backfill does.
 * The same build is loaded into a redis-server by the project's Redis sink ({@link WriteRedisSortedSets}, applied by
 * {@link BuildIndex#withSink}), so that both copies hold the same entries in the same order. Shared by the
 * deep-page, latency and footprint benchmarks.
 */
public final class CommentsFixture implements AutoCloseable {
  private final DynamoDbClient client;
  private final Path index;
  private final BuildInfo build;
  private final int items;
  private final long rawKeyBytes;
  private final RedisServer redis;
  private final String redisPrefix;
  private final long redisUsedMemoryGrowth;

  private CommentsFixture(DynamoDbClient client, Path index, BuildInfo build, int items, long rawKeyBytes,
      RedisServer redis, String redisPrefix, long redisUsedMemoryGrowth) {
    this.client = client;
    this.index = index;
    this.build = build;
    this.items = items;
    this.rawKeyBytes = rawKeyBytes;
    this.redis = redis;
    this.redisPrefix = redisPrefix;
    this.redisUsedMemoryGrowth = redisUsedMemoryGrowth;
  }

  static CommentsFixture create(Context context, int items) throws Exception {
    var dynamo = context.dynamo();
    DynamoDbClient client = dynamo.client();
    SampleComments.createTable(client);
    List<Map<String, AttributeValue>> comments = new ArrayList<>();
    long rawKeyBytes = 0;
    for (Map<String, AttributeValue> c : SampleComments.generate(items, 300, 42)) {
      Map<String, AttributeValue> one = new HashMap<>(c);
      one.put("PK2", AttributeValue.fromS(group()));
      comments.add(one);
      rawKeyBytes += utf8(one.get("SK").s()) + utf8(one.get("PK").s());
    }
    long started = System.nanoTime();
    context.progress().printf("bench: loading %,d comments of one product into DynamoDB Local ...%n", items);
    SampleComments.load(client, SampleComments.TABLE, comments, 4, null);
    context.progress().printf("bench: loaded %,d comments in %.0f s (%,.0f/s); building their index ...%n", items,
        (System.nanoTime() - started) / 1e9, items / ((System.nanoTime() - started) / 1e9));

    Path root = context.dir("comments-index");
    KeySchema schema = KeySchema.describe(client, SampleComments.TABLE, SampleComments.GSI);
    RedisServer redis = context.redis();
    long buildTime = System.currentTimeMillis();
    WriteRedisSortedSets redisSink = WriteRedisSortedSets.to(redis.uri()).withSchema(schema);
    BuildIndex buildIndex = BuildIndex.of(schema).withTieResolution(dynamo.connection())
        .withSink(WriteIndexFiles.to(root.toString())).withSink(redisSink).withKeepBuilds(1);
    buildIndex = buildIndex.withBuild(buildIndex.buildId(), buildTime);
    long redisBefore;
    try (Jedis j = redis.client()) {
      redisBefore = usedMemory(j);
    }
    started = System.nanoTime();
    LoadedItemsBuild.run(schema, comments, buildIndex, "comments");
    BuildInfo build = BuildInfo.read(new IndexLayout(root).build(buildIndex.buildId()).resolve(IndexLayout.BUILD_INFO));
    if (build.counts().entries() != items || build.counts().tieRuns() == 0
        || build.counts().tieRunsUnresolved() != 0) {
      throw new IllegalStateException("the comments index holds " + build.counts().entries() + " entries with "
          + build.counts().tieRuns() + " runs of equal sort keys (" + build.counts().tieRunsUnresolved()
          + " unresolved); expected " + items + " entries, some runs, all resolved");
    }
    long redisGrowth;
    try (Jedis j = redis.client()) {
      redisGrowth = usedMemory(j) - redisBefore;
    }
    context.progress().printf("bench: indexed %,d comments (%,d runs of equal sort keys, resolved against DynamoDB)"
        + " in files and in Redis in %.0f s%n", items, build.counts().tieRuns(), (System.nanoTime() - started) / 1e9);
    CommentsFixture f = new CommentsFixture(client, root, build, items, rawKeyBytes, redis, redisSink.keyPrefix(),
        redisGrowth);
    try (Index r = f.openRedis(); GroupPages g = r.group(group())) {
      if (g.count() != items || !build.buildId().equals(g.buildId())) {
        throw new IllegalStateException("Redis holds build " + g.buildId() + " with " + g.count() + " entries;"
            + " expected build " + build.buildId() + " with " + items);
      }
    }
    return f;
  }

  /** {@code INFO memory}'s used_memory: every byte Redis's allocator holds. */
  static long usedMemory(Jedis j) {
    return j.info("memory").lines().filter(l -> l.startsWith("used_memory:")).findFirst()
        .map(l -> Long.parseLong(l.substring("used_memory:".length()).trim()))
        .orElseThrow(() -> new IllegalStateException("INFO memory has no used_memory line"));
  }

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  /** The UTF-8 bytes of every entry's stored key values (sort key and table key), added up. */
  public long rawKeyBytes() {
    return rawKeyBytes;
  }

  /** The one product every comment belongs to. */
  public static String group() {
    return SampleComments.hotProduct();
  }

  public DynamoDbClient client() {
    return client;
  }

  /** The index root (its CURRENT build holds the group). */
  public Path index() {
    return index;
  }

  public BuildInfo build() {
    return build;
  }

  public int items() {
    return items;
  }

  /** Opens the group's pages in a freshly opened index. */
  public GroupPages open() throws java.io.IOException, io.pagemark.lookup.LookupException {
    try (Index f = Indexes.open(index.toString())) {
      return f.group(group());
    }
  }

  /** The redis-server that holds the same build. */
  public RedisServer redis() {
    return redis;
  }

  /** The Redis copy of the build, opened for lookups (the caller closes it). */
  public Index openRedis() throws java.io.IOException {
    return Indexes.open(redis.uri() + "?prefix=" + URLEncoder.encode(redisPrefix, StandardCharsets.UTF_8),
        build.buildId());
  }

  /** The group's live sorted set in Redis. */
  public byte[] redisGroupKey() {
    return new RedisLayout(redisPrefix).liveKey(RedisLayout.groupBytes(io.pagemark.key.KeyValue.ofString(group())));
  }

  /** How much Redis's {@code used_memory} grew while the build was loaded (every key of the index). */
  public long redisUsedMemoryGrowth() {
    return redisUsedMemoryGrowth;
  }

  @Override
  public void close() {
    client.close();
  }
}
