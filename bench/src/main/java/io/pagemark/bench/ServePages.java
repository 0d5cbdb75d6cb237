package io.pagemark.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.cli.DynamoJson;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.server.http.PageServer;
import io.pagemark.server.http.ServeConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * Figure 7, {@code pagemark serve} under load: {@code wrk} on loopback against page 1 and a deep page (10,000 at full
 * size) of the deep-page group, served by {@code pagemark serve} (the index places the page, one Query reads it),
 * against the same pages served by an offset layer that walks {@code LastEvaluatedKey} from page 1 ({@link
 * WalkServer}, same HTTP server and threads). The deep page's throughput is also compared with page 1's (the goal: the
 * same, ratio 0.9 or more). The server's own cost is the p50 of one client's requests minus the p50 of one DynamoDB
 * Local Query for the same page, the two taken in turns. Every served page is first checked against the Query's
 * items.
 */
final class ServePages implements Bench {
  static final int THREADS = 2;
  static final int CONNECTIONS = 16;
  /** wrk runs per URL, taken in turns. */
  static final int ROUNDS = 3;

  @Override
  public String id() {
    return "serve";
  }

  static int deepPage(Sizes sizes) {
    return quick(sizes) ? 100 : 10_000;
  }

  /** The walk baseline's deep page: a full walk to page 10,000 takes minutes per request on DynamoDB Local. */
  static int walkPage(Sizes sizes) {
    return quick(sizes) ? 100 : 1_000;
  }

  private static boolean quick(Sizes sizes) {
    return sizes.mode().equals("quick");
  }

  static String rpsName(String page, String baseline) {
    return "serve " + page + " requests/s vs " + baseline;
  }

  static String p99Name(String page, String baseline) {
    return "serve " + page + " p99 vs " + baseline;
  }

  static String overheadName(String page) {
    return "serve overhead p50, " + page + " (serve p50 minus one DynamoDB Local Query p50)";
  }

  static String appTimeName(String page) {
    return "serve time outside DynamoDB p50, " + page + " (Server-Timing app, one client) vs DynamoDB's share";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    String deep = String.format("page %,d", deepPage(sizes));
    String walk = String.format("LastEvaluatedKey walk server at page %,d", walkPage(sizes));
    return List.of(
        rpsName("page 1", "LastEvaluatedKey walk server at page 1"),
        rpsName(deep, "serve page 1"),
        p99Name(deep, "serve page 1"),
        rpsName(deep, walk),
        p99Name(deep, walk),
        overheadName("page 1"),
        overheadName(deep),
        appTimeName("page 1"),
        appTimeName(deep));
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    CommentsFixture table = context.comments();
    int deep = deepPage(sizes);
    int walkDeep = walkPage(sizes);
    int seconds = quick(sizes) ? 1 : 7; // per round; ROUNDS rounds per URL
    int warmSeconds = quick(sizes) ? 2 : 5;
    String deepLabel = String.format("page %,d", deep);
    DynamoConnection dynamo = context.dynamo().connection();
    String group = CommentsFixture.group();
    ServeConfig config = ServeConfig.of(table.index().toString(), SampleComments.TABLE, SampleComments.GSI, dynamo)
        .withPort(0);
    try (PageServer serve = PageServer.start(config);
        DynamoDbClient walkClient = pooledClient(dynamo, config.threads());
        WalkServer walk = new WalkServer(walkClient, group, config.threads());
        // The baseline Query goes through the same kind of SDK HTTP client as serve's (Apache, pooled). Through the
        // batch jobs' URL-connection client it took 2.19 ms p50 in a full run, while serve answered the whole page in
        // 1.41 ms: the overhead came out negative, a measure of the clients, not of serve.
        DynamoDbClient queryClient = pooledClient(dynamo, 1);
        GroupPages pages = table.open()) {
      PageQueries query = new PageQueries(queryClient);
      URI page1 = serve.url().resolve("v1/groups/" + group + "/pages/1");
      URI pageDeep = serve.url().resolve("v1/groups/" + group + "/pages/" + deep);
      check(page1, query.fetch(pages.pageStart(1, Sizes.PAGE_SIZE, Order.ASC)).items());
      check(pageDeep, query.fetch(pages.pageStart(deep, Sizes.PAGE_SIZE, Order.ASC)).items());
      check(walk.url(1), query.fetch(pages.pageStart(1, Sizes.PAGE_SIZE, Order.ASC)).items());

      // Both servers and DynamoDB Local are fresh JVMs: without a warm-up the first URL measured (serve's page 1)
      // pays for their JIT compilation and reads a fraction of its warm throughput.
      context.progress().printf("bench: warming up (wrk, %d s on each URL, not reported) ...%n", warmSeconds);
      for (URI u : List.of(page1, pageDeep, walk.url(1))) {
        Wrk.Result w = Wrk.run(u, THREADS, CONNECTIONS, warmSeconds, 30);
        if (w.errors() > 0) { // a cold server may finish no request in the time; it must not fail one
          throw new IllegalStateException("wrk against " + u + " (warm-up): " + w.errors() + " errors or non-2xx"
              + " answers:\n" + w.output());
        }
      }
      context.progress().printf("bench: wrk -t%d -c%d against serve page 1, %s and the walk server's page 1, in"
          + " turns, %d rounds of %d s ...%n", THREADS, CONNECTIONS, deepLabel, ROUNDS, seconds);
      // In turns, so that the machine's load drifts alike over the three; each figure is the median round.
      List<Wrk.Result> s1Runs = new ArrayList<>();
      List<Wrk.Result> sDeepRuns = new ArrayList<>();
      List<Wrk.Result> w1Runs = new ArrayList<>();
      for (int round = 0; round < ROUNDS; round++) {
        s1Runs.add(load(page1, CONNECTIONS, seconds));
        sDeepRuns.add(load(pageDeep, CONNECTIONS, seconds));
        w1Runs.add(load(walk.url(1), CONNECTIONS, seconds));
      }
      Wrk.Result s1 = median(s1Runs);
      Wrk.Result sDeep = median(sDeepRuns);
      Wrk.Result w1 = median(w1Runs);
      String how = String.format("wrk -t%d -c%d -d%ds --latency on 127.0.0.1, %d rounds in turns after %d s of"
          + " warm-up on each URL, the median round's requests/s and p99 (each taken separately); one group of %,d"
          + " comments on DynamoDB Local, %d a page; serve with %d threads; the walk server is the same JDK HTTP server"
          + " with the same threads, one Query per page from page 1", THREADS, CONNECTIONS, seconds, ROUNDS,
          warmSeconds, table.items(), Sizes.PAGE_SIZE, config.threads());
      context.report(new Figure(rpsName("page 1", "LastEvaluatedKey walk server at page 1"), s1.requestsPerSecond(),
          "req/s", "walk server, page 1", w1.requestsPerSecond(), "req/s", how));
      context.report(new Figure(rpsName(deepLabel, "serve page 1"), sDeep.requestsPerSecond(), "req/s",
          "serve, page 1", s1.requestsPerSecond(), "req/s", how + "; goal: ratio 0.9 or more"));
      context.report(new Figure(p99Name(deepLabel, "serve page 1"), sDeep.p99Micros() / 1e3, "ms", "serve, page 1",
          s1.p99Micros() / 1e3, "ms", how));
      // Overhead: a request to serve and a Query of the same page, alternately from one client, so that the
      // machine's load drifts alike over both.
      try (LoopbackHttp http = new LoopbackHttp(serve.url())) {
        int n = quick(sizes) ? 200 : 300; // deep Queries are slow on DynamoDB Local; 300 give a p50
        List<Turns> turns = List.of(
            new Turns("page 1", http, page1, pages.pageStart(1, Sizes.PAGE_SIZE, Order.ASC), n),
            new Turns(deepLabel, http, pageDeep, pages.pageStart(deep, Sizes.PAGE_SIZE, Order.ASC), n));
        for (int i = -Math.min(50, n); i < n; i++) { // the first 50 rounds warm up
          for (Turns t : turns) {
            t.round(query, i >= 0);
          }
        }
        for (Turns t : turns) {
          t.report(context);
        }
      }

      // A walk request to the deep page takes seconds (minutes at full size on DynamoDB Local): time one first, so
      // that wrk runs long enough for several.
      long t0 = System.nanoTime();
      check(walk.url(walkDeep), query.fetch(pages.pageStart(walkDeep, Sizes.PAGE_SIZE, Order.ASC)).items());
      double oneWalk = (System.nanoTime() - t0) / 1e9;
      int walkSeconds = (int) Math.max(quick(sizes) ? 5 : 60, Math.ceil(4 * oneWalk));
      context.progress().printf("bench: one walk to page %,d took %.1f s; wrk -c2 against it for %d s ...%n",
          walkDeep, oneWalk, walkSeconds);
      Wrk.Result wDeep = load(walk.url(walkDeep), 2, walkSeconds, (int) Math.ceil(3 * oneWalk) + 30);
      String walkHow = how + String.format("; the walk server's deep page: one run of wrk -t2 -c2 -d%ds at page %,d"
          + " (a walk to page %,d costs more still)", walkSeconds, walkDeep, deep);
      String walkName = String.format("LastEvaluatedKey walk server at page %,d", walkDeep);
      context.report(new Figure(rpsName(deepLabel, walkName), sDeep.requestsPerSecond(), "req/s",
          "walk server, page " + walkDeep, wDeep.requestsPerSecond(), "req/s", walkHow));
      context.report(new Figure(p99Name(deepLabel, walkName), sDeep.p99Micros() / 1e3, "ms",
          "walk server, page " + walkDeep, wDeep.p99Micros() / 1e3, "ms", walkHow));
    }
  }

  /**
   * One client's requests to serve for a page, each followed by one Query of the same page from this JVM, a round at
   * a time (the pages' rounds alternate, so that the machine's load drifts alike over all): reports serve's p50 minus
   * the Query's (the overhead), and the handler's own time from {@code Server-Timing}, with the time outside the
   * handler (loopback, the JDK server's dispatch, this client) in the notes.
   */
  private static final class Turns {
    private final String label;
    private final LoopbackHttp http;
    private final URI uri;
    private final byte[] request;
    private final PageStart start;
    private final int n;
    private final Samples served;
    private final Samples queried;
    private final Samples app; // the server's own time, as its Server-Timing header reports it
    private final Samples dynamoShare;
    private final Samples sdk;
    private final Samples outside; // the client's time less the handler's: loopback, dispatch, this client

    Turns(String label, LoopbackHttp http, URI uri, PageStart start, int n) {
      this.label = label;
      this.http = http;
      this.uri = uri;
      this.request = http.prepare(uri);
      this.start = start;
      this.n = n;
      served = new Samples(n);
      queried = new Samples(n);
      app = new Samples(n);
      dynamoShare = new Samples(n);
      sdk = new Samples(n);
      outside = new Samples(n);
    }

    void round(PageQueries query, boolean counted) throws java.io.IOException {
      long t0 = System.nanoTime();
      LoopbackHttp.Answer r = http.send(request);
      long t1 = System.nanoTime();
      query.fetch(start);
      long t2 = System.nanoTime();
      if (r.status() != 200) {
        throw new IllegalStateException(uri + " answered " + r.status());
      }
      if (counted) {
        served.add(t1 - t0);
        queried.add(t2 - t1);
        String timing = r.headers().get("server-timing");
        if (timing == null) {
          throw new IllegalStateException(uri + " answered without a Server-Timing header");
        }
        long a = serverTimingNanos(timing, "app");
        long d = serverTimingNanos(timing, "dynamodb");
        long k = serverTimingNanos(timing, "sdk");
        app.add(a);
        dynamoShare.add(d);
        sdk.add(k);
        outside.add(Math.max(0, t1 - t0 - a - d - k));
      }
    }

    void report(Context context) {
      double serveMs = served.percentileMicros(50) / 1e3;
      double queryMs = queried.percentileMicros(50) / 1e3;
      context.report(new Figure(overheadName(label), serveMs - queryMs, "ms", "one DynamoDB Local Query p50",
          queryMs, "ms", String.format("%,d rounds after 50 warm-up, both pages' rounds in turns, each one GET of the"
              + " page from serve (one kept-alive connection, TCP_NODELAY, the request prepared before the clock, read"
              + " on the timing thread) then one Query of the same page (from its exclusive start key) from this JVM"
              + " through the same kind of SDK HTTP client as serve's (Apache, pooled); serve p50 %.2f ms; of a"
              + " request, outside serve's handler (loopback, the JDK server's dispatch, this client) p50 %.2f ms;"
              + " goal: under 1 ms", n, serveMs, outside.percentileMicros(50) / 1e3)));
      context.report(new Figure(appTimeName(label), app.percentileMicros(50) / 1e3, "ms",
          "the same requests' DynamoDB time p50 (Server-Timing dynamodb: the SDK's HTTP exchanges)",
          dynamoShare.percentileMicros(50) / 1e3, "ms", String.format("the same %,d requests as the overhead figure;"
              + " app = the handler's time (routing, index lookup, stale check, JSON, headers) without the SDK's"
              + " calls, measured in the server, so neither loopback HTTP nor the client's scheduling is in it; the"
              + " SDK's own work around the exchange (marshalling, signing, parsing the items) p50 %.2f ms; outside"
              + " the handler p50 %.2f ms; serve p50 at the client %.2f ms; app p99 %.2f ms", n,
              sdk.percentileMicros(50) / 1e3, outside.percentileMicros(50) / 1e3, serveMs,
              app.percentileMicros(99) / 1e3)));
    }
  }

  /** One metric's duration from a {@code Server-Timing} header ({@code name;dur=MS, ...}), in nanoseconds. */
  static long serverTimingNanos(String header, String name) {
    for (String metric : header.split(",")) {
      String[] parts = metric.trim().split(";");
      if (parts[0].equals(name)) {
        for (int i = 1; i < parts.length; i++) {
          if (parts[i].startsWith("dur=")) {
            return Math.round(Double.parseDouble(parts[i].substring(4)) * 1e6);
          }
        }
      }
    }
    throw new IllegalStateException("Server-Timing \"" + header + "\" has no " + name + " duration");
  }

  /** The median of some runs: the median requests/s and, separately, the median p50 and p99 latency. */
  static Wrk.Result median(List<Wrk.Result> runs) {
    java.util.function.Function<java.util.function.ToDoubleFunction<Wrk.Result>, Double> mid =
        f -> runs.stream().mapToDouble(f).sorted().skip(runs.size() / 2).findFirst().orElseThrow();
    return new Wrk.Result(mid.apply(Wrk.Result::requestsPerSecond), mid.apply(Wrk.Result::p50Micros),
        mid.apply(Wrk.Result::p99Micros), runs.stream().mapToLong(Wrk.Result::requests).sum(),
        runs.stream().mapToLong(Wrk.Result::errors).sum(), runs.get(runs.size() / 2).output());
  }

  private static Wrk.Result load(URI url, int connections, int seconds) throws Exception {
    return load(url, connections, seconds, 30);
  }

  private static Wrk.Result load(URI url, int connections, int seconds, int timeoutSeconds) throws Exception {
    Wrk.Result r = Wrk.run(url, Math.min(THREADS, connections), connections, seconds, timeoutSeconds);
    if (r.errors() > 0 || r.requests() == 0) {
      throw new IllegalStateException("wrk against " + url + ": " + r.requests() + " requests, " + r.errors()
          + " errors or non-2xx answers:\n" + r.output());
    }
    return r;
  }

  /** Fails unless the URL answers 200 with exactly these items. */
  private static void check(URI url, List<Map<String, AttributeValue>> expected) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(url).build(),
        HttpResponse.BodyHandlers.ofString());
    ObjectMapper json = new ObjectMapper();
    List<String> items = new ArrayList<>();
    expected.forEach(i -> items.add(DynamoJson.item(i)));
    JsonNode want = json.readTree("[" + String.join(",", items) + "]");
    if (r.statusCode() != 200 || !json.readTree(r.body()).get("items").equals(want)) {
      throw new IllegalStateException(url + " answered " + r.statusCode() + " with other items than the Query of"
          + " its page: " + r.body());
    }
  }

  /** A DynamoDB client with a connection pool as large as the server's, as {@code pagemark serve} has. */
  private static DynamoDbClient pooledClient(DynamoConnection c, int connections) {
    return DynamoDbClient.builder().region(Region.of(c.region()))
        .credentialsProvider(DynamoConnection.credentialsFor(c.endpoint()))
        .httpClient(ApacheHttpClient.builder().maxConnections(connections).build())
        .endpointOverride(URI.create(c.endpoint()))
        .build();
  }

  /**
   * The Query an application sends for a page once the index has placed it (as {@code PageReader} does): one request
   * from the page's exclusive start key, the sort key bounded by the start key's own, its first {@code skip} items
   * dropped. The comments are small, so one request holds the page.
   */
  private record PageQueries(DynamoDbClient client) {
    QueryResponse fetch(PageStart s) {
      QueryRequest.Builder b = QueryRequest.builder().tableName(SampleComments.TABLE).indexName(SampleComments.GSI)
          .keyConditionExpression("PK2 = :g")
          .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(s.group())))
          .scanIndexForward(s.order().scanIndexForward()).limit((int) (s.skip() + s.pageSize()));
      if (s.exclusiveStartKey() != null) {
        Map<String, AttributeValue> from = s.exclusiveStartKeyAttributes();
        b.exclusiveStartKey(from)
            .keyConditionExpression(s.order().scanIndexForward() ? "PK2 = :g AND SK >= :s" : "PK2 = :g AND SK <= :s")
            .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(s.group()), ":s", from.get("SK")));
      }
      QueryResponse r = client.query(b.build());
      List<Map<String, AttributeValue>> items = r.items();
      return r.toBuilder().items(items.subList((int) Math.min(s.skip(), items.size()), items.size())).build();
    }
  }
}
