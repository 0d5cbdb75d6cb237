package io.pagemark.server.http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;

import io.pagemark.lookup.PageMetrics;
import org.junit.jupiter.api.Test;

class ServerMetricsTest {
  @Test
  void countsRequestsByRouteAndStatusAndBucketsLatency() {
    ServerMetrics m = new ServerMetrics(new PageMetrics());
    m.record("page", 200, 700_000);
    m.record("page", 200, 3_000_000);
    m.record("page", 404, 100_000);
    String text = m.text();
    assertThat(text, containsString("pagemark_http_requests_total{route=\"page\",status=\"200\"} 2\n"));
    assertThat(text, containsString("pagemark_http_requests_total{route=\"page\",status=\"404\"} 1\n"));
    assertThat(text, containsString("pagemark_http_request_duration_seconds_bucket{route=\"page\",le=\"0.0005\"} 1\n"));
    assertThat(text, containsString("pagemark_http_request_duration_seconds_bucket{route=\"page\",le=\"0.001\"} 2\n"));
    assertThat(text, containsString("pagemark_http_request_duration_seconds_bucket{route=\"page\",le=\"0.005\"} 3\n"));
    assertThat(text, containsString("pagemark_http_request_duration_seconds_bucket{route=\"page\",le=\"+Inf\"} 3\n"));
    assertThat(text, containsString("pagemark_http_request_duration_seconds_sum{route=\"page\"} 0.0038\n"));
    assertThat(text, containsString("# TYPE pagemark_stale_pages_total counter\npagemark_stale_pages_total 0\n"));
    assertThat(text, containsString("pagemark_dynamodb_read_capacity_units_total 0\n"));
  }
}
