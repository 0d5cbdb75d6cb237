package io.pagemark.bench;

import io.pagemark.format.s3.S3IndexStore;
import io.pagemark.format.s3.S3Location;
import io.pagemark.format.s3.S3Reads;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.lookup.s3.S3Indexes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Page starts through an index kept in S3 (s3proxy on loopback, a real S3 API): the deep-page fixture's build is
 * uploaded as it is, opened with {@code Indexes.open("s3://...")}, its group opened once (header read and cached),
 * then random page starts are timed. Each figure has its baseline from the same run: the same lookups on the
 * local-file index (warm page cache), one DynamoDB Local Query of the page, the Query's requests, and the record width
 * (a page start of a unique sort key reads one record: the goal is to transfer no more than the records asked).
 */
final class S3Lookups implements Bench {
  static final String VS_FILE = "S3 page start %s, s3proxy on loopback vs the local-file index (warm)";
  static final String VS_QUERY = "S3 page start %s, s3proxy on loopback vs one DynamoDB Local Query";
  static final String GETS = "S3 GETs per page start (cached group) vs Query requests per page";
  static final String BYTES = "S3 bytes per page start vs the record width";

  @Override
  public String id() {
    return "s3-lookups";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(String.format(VS_FILE, "p50"), String.format(VS_FILE, "p99"), String.format(VS_QUERY, "p50"),
        String.format(VS_QUERY, "p99"), GETS, BYTES);
  }

  /** Timed S3 lookups: a tenth of the warm file lookups (each is an HTTP request), at least 200. */
  static int lookups(Sizes sizes) {
    return Math.max(200, sizes.warmLookups() / 10);
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    CommentsFixture table = context.comments();
    String bucket = context.s3().createBucket("bench-s3-lookups");
    String spec = context.s3().spec(bucket, "comments-index");
    upload(table.index(), spec);

    int n = lookups(sizes);
    Random random = new Random(11);
    long pages;
    try (GroupPages g = table.open()) {
      pages = g.pages(Sizes.PAGE_SIZE);
    }
    List<Long> sample = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sample.add(1 + (long) random.nextInt((int) pages));
    }

    Samples file = new Samples(n);
    List<PageStart> starts = new ArrayList<>();
    try (Index index = Indexes.open(table.index().toString());
        GroupPages g = index.group(CommentsFixture.group())) {
      for (long p : sample) { // warm-up
        starts.add(g.pageStart(p, Sizes.PAGE_SIZE, Order.ASC));
      }
      for (long p : sample) {
        long t0 = System.nanoTime();
        g.pageStart(p, Sizes.PAGE_SIZE, Order.ASC);
        file.add(System.nanoTime() - t0);
      }
    }

    for (int i = 0; i < Math.min(100, n); i++) {
      LookupLatency.query(table.client(), starts.get(i)); // warm-up
    }
    Samples queries = new Samples(n);
    long queryRequests = 0;
    for (PageStart s : starts) {
      long t0 = System.nanoTime();
      if (LookupLatency.query(table.client(), s).items().isEmpty()) {
        throw new IllegalStateException("the Query for page " + s.page() + " returned no items");
      }
      queries.add(System.nanoTime() - t0);
      queryRequests++; // one request: a page of 20 is far below DynamoDB's 1 MB a response
    }

    Samples s3 = new Samples(n);
    long gets;
    long bytes;
    int width;
    try (Index index = Indexes.open(spec);
        GroupPages g = index.group(CommentsFixture.group())) {
      width = recordWidth(table);
      for (int i = 0; i < Math.min(100, n); i++) { // warm-up: connections, JIT
        g.pageStart(sample.get(i), Sizes.PAGE_SIZE, Order.ASC);
      }
      S3Reads reads = S3Indexes.reads(index);
      long gets0 = reads.gets();
      long bytes0 = reads.bytes();
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        PageStart p = g.pageStart(sample.get(i), Sizes.PAGE_SIZE, Order.ASC);
        s3.add(System.nanoTime() - t0);
        if (!p.equals(starts.get(i))) {
          throw new IllegalStateException("page " + sample.get(i) + " starts elsewhere in S3 than in the file index");
        }
      }
      gets = reads.gets() - gets0;
      bytes = reads.bytes() - bytes0;
    }

    String note = String.format("%,d random page starts of %,d pages (%,d entries, %d a page), the group opened"
        + " once (its header cached); the same build uploaded to s3proxy 4.1.0 (filesystem backend) on 127.0.0.1,"
        + " read with one ranged GET per record through the AWS SDK's S3Client", n, pages, table.items(),
        Sizes.PAGE_SIZE);
    context.report(new Figure(String.format(VS_FILE, "p50"), s3.percentileMicros(50), "us",
        "the local-file index, warm", file.percentileMicros(50), "us", note));
    context.report(new Figure(String.format(VS_FILE, "p99"), s3.percentileMicros(99), "us",
        "the local-file index, warm", file.percentileMicros(99), "us", note));
    String q = "one DynamoDB Local Query (20 items from the page's exclusive start key)";
    context.report(new Figure(String.format(VS_QUERY, "p50"), s3.percentileMicros(50), "us", q,
        queries.percentileMicros(50), "us", note));
    context.report(new Figure(String.format(VS_QUERY, "p99"), s3.percentileMicros(99), "us", q,
        queries.percentileMicros(99), "us", note));
    context.report(new Figure(GETS, (double) gets / n, "GETs", "Query requests per page (the page itself)",
        (double) queryRequests / n, "requests", note + "; a page start reads at most 3 records"));
    context.report(new Figure(BYTES, (double) bytes / n, "bytes", "the record width of the group file", width,
        "bytes", note + "; bytes are the GET bodies"));
  }

  /** Uploads an index directory's files as they are (CURRENT last). */
  private static void upload(Path root, String spec) throws Exception {
    try (S3IndexStore store = new S3IndexStore(S3Location.parse(spec));
        Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
        String relative = root.relativize(f).toString().replace('\\', '/');
        if (!relative.equals("CURRENT")) {
          store.put(relative, f);
        }
      }
      store.put("CURRENT", root.resolve("CURRENT"));
    }
  }

  private static int recordWidth(CommentsFixture table) throws Exception {
    try (io.pagemark.format.GroupFile f = io.pagemark.format.GroupFile.open(LookupLatency.groupFile(table))) {
      return f.header().recordWidth();
    }
  }
}
