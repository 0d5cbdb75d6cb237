package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ServePagesTest {
  @Test
  void readsEachDurationOfAServerTimingHeaderInNanoseconds() {
    String header = "dynamodb;dur=3.210, app;dur=0.045";
    assertThat(ServePages.serverTimingNanos(header, "dynamodb"), is(3_210_000L));
    assertThat(ServePages.serverTimingNanos(header, "app"), is(45_000L));
    assertThat(ServePages.serverTimingNanos("app;desc=\"x\";dur=1.5", "app"), is(1_500_000L));
  }

  @Test
  void aMissingMetricIsAnError() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ServePages.serverTimingNanos("dynamodb;dur=1.000", "app"));
    assertThat(e.getMessage(), containsString("has no app duration"));
  }

  @Test
  void theMedianOfRunsTakesEachFigureSeparately() {
    Wrk.Result a = new Wrk.Result(100, 1_000, 9_000, 300, 0, "a");
    Wrk.Result b = new Wrk.Result(300, 3_000, 5_000, 900, 0, "b");
    Wrk.Result c = new Wrk.Result(200, 2_000, 7_000, 600, 1, "c");
    Wrk.Result m = ServePages.median(java.util.List.of(a, b, c));
    assertThat(m.requestsPerSecond(), is(200.0));
    assertThat(m.p50Micros(), is(2_000.0));
    assertThat(m.p99Micros(), is(7_000.0));
    assertThat(m.requests(), is(1_800L));
    assertThat(m.errors(), is(1L));
  }
}
