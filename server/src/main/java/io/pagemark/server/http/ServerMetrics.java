package io.pagemark.server.http;

import io.pagemark.lookup.PageMetrics;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's counters in Prometheus' text format (version 0.0.4), with no metrics library: requests by route and
 * status, a latency histogram by route, and what the page readers did (pages, fresh and stale pages, DynamoDB
 * Query requests and read capacity, from a shared {@link PageMetrics}). Thread-safe.
 */
final class ServerMetrics {
  /** Upper bounds of the latency histogram's buckets, in seconds. */
  static final double[] BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

  private final PageMetrics pages;
  private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
  private final Map<String, Histogram> latency = new ConcurrentHashMap<>();

  ServerMetrics(PageMetrics pages) {
    this.pages = pages;
  }

  PageMetrics pages() {
    return pages;
  }

  /** Counts one answered request. */
  void record(String route, int status, long nanos) {
    requests.computeIfAbsent(route + "\u0000" + status, k -> new LongAdder()).increment();
    latency.computeIfAbsent(route, k -> new Histogram()).add(nanos);
  }

  private static final class Histogram {
    final LongAdder[] counts = new LongAdder[BUCKETS.length + 1];
    final LongAdder sumNanos = new LongAdder();

    Histogram() {
      for (int i = 0; i < counts.length; i++) {
        counts[i] = new LongAdder();
      }
    }

    void add(long nanos) {
      double seconds = nanos / 1e9;
      int i = 0;
      while (i < BUCKETS.length && seconds > BUCKETS[i]) {
        i++;
      }
      counts[i].increment();
      sumNanos.add(nanos);
    }
  }

  /** Everything, as a scrape of {@code GET /metrics} returns it. */
  String text() {
    StringBuilder b = new StringBuilder(4096);
    b.append("# HELP pagemark_http_requests_total HTTP requests answered, by route and status.\n");
    b.append("# TYPE pagemark_http_requests_total counter\n");
    for (Map.Entry<String, LongAdder> e : new TreeMap<>(requests).entrySet()) {
      String[] routeStatus = e.getKey().split("\u0000");
      b.append("pagemark_http_requests_total{route=\"").append(routeStatus[0]).append("\",status=\"")
          .append(routeStatus[1]).append("\"} ").append(e.getValue().sum()).append('\n');
    }
    b.append("# HELP pagemark_http_request_duration_seconds Time from a request's dispatch to its response.\n");
    b.append("# TYPE pagemark_http_request_duration_seconds histogram\n");
    for (Map.Entry<String, Histogram> e : new TreeMap<>(latency).entrySet()) {
      String route = e.getKey();
      long cumulative = 0;
      for (int i = 0; i <= BUCKETS.length; i++) {
        cumulative += e.getValue().counts[i].sum();
        String le = i == BUCKETS.length ? "+Inf" : number(BUCKETS[i]);
        b.append("pagemark_http_request_duration_seconds_bucket{route=\"").append(route).append("\",le=\"")
            .append(le).append("\"} ").append(cumulative).append('\n');
      }
      b.append("pagemark_http_request_duration_seconds_sum{route=\"").append(route).append("\"} ")
          .append(number(e.getValue().sumNanos.sum() / 1e9)).append('\n');
      b.append("pagemark_http_request_duration_seconds_count{route=\"").append(route).append("\"} ")
          .append(cumulative).append('\n');
    }
    counter(b, "pagemark_pages_served_total", "Pages read, from the index or fresh from DynamoDB.", pages.pages());
    counter(b, "pagemark_fresh_pages_total", "Pages read straight from DynamoDB (--freshPages).",
        pages.freshPages());
    counter(b, "pagemark_stale_pages_total",
        "Pages whose items differed from the build's keys: the group changed since the build; a rising count says"
            + " the next build or commit is due.", pages.stalePages());
    counter(b, "pagemark_dynamodb_requests_total", "DynamoDB Query requests sent for pages.",
        pages.queryRequests());
    b.append("# HELP pagemark_dynamodb_read_capacity_units_total Read capacity units DynamoDB reported for them.\n");
    b.append("# TYPE pagemark_dynamodb_read_capacity_units_total counter\n");
    b.append("pagemark_dynamodb_read_capacity_units_total ").append(number(pages.consumedReadCapacity()))
        .append('\n');
    return b.toString();
  }

  private static void counter(StringBuilder b, String name, String help, long value) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" counter\n");
    b.append(name).append(' ').append(value).append('\n');
  }

  private static String number(double v) {
    return java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }
}
