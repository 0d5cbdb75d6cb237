package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class SamplesTest {
  @Test
  void nearestRankPercentilesInMicroseconds() {
    Samples s = new Samples(100);
    for (int i = 100; i >= 1; i--) { // out of order on purpose
      s.add(i * 1_000L);
    }
    assertThat(s.percentileMicros(50), is(50.0));
    assertThat(s.percentileMicros(99), is(99.0));
    assertThat(s.percentileMicros(100), is(100.0));
    assertThat(s.percentileMicros(0.5), is(1.0));
  }

  @Test
  void oneSampleIsEveryPercentile() {
    Samples s = new Samples(1);
    s.add(7_000);
    assertThat(s.percentileMicros(50), is(7.0));
    assertThat(s.percentileMicros(99), is(7.0));
  }

  @Test
  void meanInMicroseconds() {
    Samples s = new Samples(3);
    s.add(1_000);
    s.add(2_000);
    s.add(6_000);
    assertThat(s.meanMicros(), is(3.0));
  }

  @Test
  void noSamplesIsAnError() {
    assertThrows(IllegalStateException.class, () -> new Samples(3).percentileMicros(50));
    assertThrows(IllegalStateException.class, () -> new Samples(3).meanMicros());
  }
}
