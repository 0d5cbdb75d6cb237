package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.is;

import org.junit.jupiter.api.Test;

class WrkTest {
  static final String OUTPUT = String.join("\n",
      "Running 3s test @ http://127.0.0.1:8080/v1/groups/g/pages/1",
      "  2 threads and 16 connections",
      "  Thread Stats   Avg      Stdev     Max   +/- Stdev",
      "    Latency     1.20ms  500.00us  10.00ms   90.00%",
      "    Req/Sec     6.00k   500.00     7.00k    70.00%",
      "  Latency Distribution",
      "     50%  850.00us",
      "     75%    1.30ms",
      "     90%    1.60ms",
      "     99%    1.02s ",
      "  36000 requests in 3.00s, 10.00MB read",
      "  Socket errors: connect 0, read 2, write 0, timeout 1",
      "  Non-2xx or 3xx responses: 5",
      "Requests/sec:  12000.50",
      "Transfer/sec:      3.33MB", "");

  @Test
  void readsThroughputPercentilesAndErrors() {
    Wrk.Result r = Wrk.parse(OUTPUT);
    assertThat(r.requestsPerSecond(), closeTo(12000.5, 1e-9));
    assertThat(r.p50Micros(), closeTo(850, 1e-9));
    assertThat(r.p99Micros(), closeTo(1_020_000, 1e-6));
    assertThat(r.requests(), is(36000L));
    assertThat(r.errors(), is(8L));
  }
}
