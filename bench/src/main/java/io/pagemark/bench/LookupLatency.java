package io.pagemark.bench;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.demo.SampleComments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * Figure 2, rank lookup latency: the time to find where a random page of the deep group starts ({@link
 * GroupPages#pageStart}) against the time of one DynamoDB Local Query (a page of 20 items from an exclusive start
 * key, the work a lookup saves many times over), p50 and p99 of single calls timed with {@code System.nanoTime}
 * after a warm-up.
 *
 * <ul>
 *   <li>warm: the index and the group opened once, the group file in the page cache;
 *   <li>cold: before each lookup the group file's pages are evicted from the page cache ({@code posix_fadvise
 *       DONTNEED} through {@code dd iflag=nocache}, checked with {@code fincore}), then the group is opened (header
 *       read and checked) and the page start looked up.
 * </ul>
 *
 * <p>The Redis copy of the same build (sorted sets loaded by the Redis sink, read with {@code ZRANGE key i i} on
 * loopback through the library's Redis reader) is timed warm the same way. Another backend is timed by
 * adding it to {@link #backends}: it is an {@link Index} holding the same build.
 */
final class LookupLatency implements Bench {
  /** An index backend to time warm lookups on. */
  interface Backend {
    /** Short name for the figure, e.g. "file index warm". */
    String name();

    /** Opens the backend's copy of the fixture's build. */
    Index open(CommentsFixture table) throws Exception;

    /** How a lookup reads this backend, for the results table. */
    default String how() {
      return "";
    }
  }

  /** The backends timed warm. */
  static List<Backend> backends() {
    return List.of(new Backend() {
      @Override
      public String name() {
        return "file index warm";
      }

      @Override
      public Index open(CommentsFixture table) throws IOException {
        return Indexes.open(table.index().toString());
      }
    }, new Backend() {
      @Override
      public String name() {
        return "Redis ZRANGE on loopback";
      }

      @Override
      public Index open(CommentsFixture table) throws IOException {
        return table.openRedis();
      }

      @Override
      public String how() {
        return "; the same build loaded by the Redis sink into a redis-server on 127.0.0.1, each record read one"
            + " MULTI HGET(stamp) ZRANGE(key, i, i) EXEC exchange through the library's Redis reader";
      }
    });
  }

  static final String COLD = "file index cold";

  static String name(String backend, String percentile) {
    return "rank lookup " + percentile + ", " + backend + " vs one DynamoDB Local Query";
  }

  @Override
  public String id() {
    return "lookup-latency";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    List<String> names = new ArrayList<>();
    for (Backend b : backends()) {
      names.add(name(b.name(), "p50"));
      names.add(name(b.name(), "p99"));
    }
    names.add(name(COLD, "p50"));
    names.add(name(COLD, "p99"));
    return names;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    CommentsFixture table = context.comments();
    int size = Sizes.PAGE_SIZE;
    long pages;
    List<PageStart> starts = new ArrayList<>();
    Random random = new Random(7);
    try (GroupPages g = table.open()) {
      pages = g.pages(size);
      for (int i = 0; i < sizes.queries(); i++) {
        starts.add(g.pageStart(1 + (long) random.nextInt((int) pages), size, Order.ASC));
      }
    }

    // Baseline: one Query for a page from its start key, as an application does after the lookup.
    for (int i = 0; i < Math.min(100, starts.size()); i++) {
      query(table.client(), starts.get(i)); // warm-up: connections, JIT, DynamoDB Local's caches
    }
    Samples queries = new Samples(starts.size());
    for (PageStart s : starts) {
      long t0 = System.nanoTime();
      QueryResponse p = query(table.client(), s);
      queries.add(System.nanoTime() - t0);
      if (p.items().isEmpty()) {
        throw new IllegalStateException("the Query for page " + s.page() + " returned no items");
      }
    }
    double q50 = queries.percentileMicros(50);
    double q99 = queries.percentileMicros(99);
    String baseline = "one DynamoDB Local Query (20 items from an exclusive start key)";
    String pagesNote = String.format("random pages of %,d (%,d entries, %d a page)", pages, table.items(), size);

    for (Backend b : backends()) {
      Samples s = new Samples(sizes.warmLookups());
      try (Index index = b.open(table);
          GroupPages g = index.group(CommentsFixture.group())) {
        long sink = 0;
        for (int i = 0; i < sizes.warmLookups(); i++) { // warm-up
          sink += lookup(g, 1 + random.nextInt((int) pages));
        }
        for (int i = 0; i < sizes.warmLookups(); i++) {
          long page = 1 + random.nextInt((int) pages);
          long t0 = System.nanoTime();
          sink += lookup(g, page);
          s.add(System.nanoTime() - t0);
        }
        if (sink == 42) {
          context.progress().println(); // keeps the lookups' results alive
        }
      }
      String note = String.format("%,d timed lookups after %,d warm-up; %s; baseline %,d Queries%s", s.count(),
          sizes.warmLookups(), pagesNote, queries.count(), b.how());
      context.report(new Figure(name(b.name(), "p50"), s.percentileMicros(50), "us", baseline, q50, "us", note));
      context.report(new Figure(name(b.name(), "p99"), s.percentileMicros(99), "us", baseline, q99, "us", note));
    }

    Samples cold = coldLookups(table, sizes.coldLookups(), pages, random, context);
    String note = String.format("%,d lookups, each after evicting the group file from the page cache"
        + " (posix_fadvise DONTNEED via dd iflag=nocache; fincore showed 0 resident pages) and opening the group;"
        + " %s", cold.count(), pagesNote);
    context.report(new Figure(name(COLD, "p50"), cold.percentileMicros(50), "us", baseline, q50, "us", note));
    context.report(new Figure(name(COLD, "p99"), cold.percentileMicros(99), "us", baseline, q99, "us", note));
  }

  /** The Query an application sends after the lookup: one request from the page's exclusive start key. */
  static QueryResponse query(DynamoDbClient client, PageStart s) {
    QueryRequest.Builder b = QueryRequest.builder().tableName(SampleComments.TABLE).indexName(SampleComments.GSI)
        .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(s.group())))
        .scanIndexForward(s.order().scanIndexForward()).limit((int) (s.skip() + s.pageSize()))
        .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
    if (s.exclusiveStartKey() != null) {
      b.exclusiveStartKey(s.exclusiveStartKeyAttributes());
    }
    return client.query(b.build());
  }

  private static long lookup(GroupPages g, long page) throws Exception {
    PageStart p = g.pageStart(page, Sizes.PAGE_SIZE, Order.ASC);
    return p.skip() + (p.exclusiveStartKey() == null ? 0 : p.exclusiveStartKey().size());
  }

  private static Samples coldLookups(CommentsFixture table, int n, long pages, Random random, Context context)
      throws Exception {
    Samples s = new Samples(n);
    try (Index index = Indexes.open(table.index().toString())) {
      Path file = groupFile(table);
      for (int i = 0; i < n; i++) {
        PageCache.evict(file);
        if (PageCache.residentPages(file) != 0) {
          throw new IllegalStateException("evicting " + file + " from the page cache did not work");
        }
        long page = 1 + random.nextInt((int) pages);
        long t0 = System.nanoTime();
        try (GroupPages g = index.group(CommentsFixture.group())) {
          lookup(g, page);
        }
        s.add(System.nanoTime() - t0);
      }
    }
    return s;
  }

  /** The group's file in the fixture's current build (the only group file there). */
  static Path groupFile(CommentsFixture table) throws IOException {
    Path groups = table.index().resolve("builds").resolve(table.build().buildId()).resolve("groups");
    try (var files = Files.walk(groups)) {
      List<Path> found = files.filter(f -> f.toString().endsWith(".pmi")).toList();
      if (found.size() != 1) {
        throw new IllegalStateException("expected one group file under " + groups + ", found " + found.size());
      }
      return found.get(0);
    }
  }
}
