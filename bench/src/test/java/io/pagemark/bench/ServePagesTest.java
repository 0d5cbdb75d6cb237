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
}
