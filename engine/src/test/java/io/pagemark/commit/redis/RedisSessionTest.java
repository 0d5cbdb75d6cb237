package io.pagemark.commit.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.redis.RedisAddress;
import io.pagemark.testing.LocalProcess;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The session's retries: how long they wait, when they give up, and what they say then. */
class RedisSessionTest {
  @Test
  void exponentialWaitsGrowToTheirCapAndAddUpToExactlyTheBudget() {
    RedisBackoff.Waits waits = RedisBackoff.exponential(Duration.ofSeconds(9)).start();
    long total = 0;
    int n = 0;
    for (long w = waits.nextMillis(); w != RedisBackoff.STOP; w = waits.nextMillis()) {
      long cap = Math.min(ExponentialBackoff.MAX_MILLIS, ExponentialBackoff.BASE_MILLIS << Math.min(n, 10));
      assertThat("wait " + n, w, lessThanOrEqualTo(cap));
      if (total + cap <= 9_000) {
        assertThat("wait " + n + " is drawn from the upper half of its cap", w * 2, greaterThan(cap - 1));
      }
      total += w;
      n++;
    }
    assertThat(total, is(9_000L));
    assertThat(waits.nextMillis(), is(RedisBackoff.STOP));
    assertThat("a new operation starts over", RedisBackoff.exponential(Duration.ofSeconds(9)).start().nextMillis(),
        lessThanOrEqualTo(ExponentialBackoff.BASE_MILLIS));
    assertThat(RedisBackoff.exponential(Duration.ZERO).start().nextMillis(), is(RedisBackoff.STOP));
    assertThat(assertThrows(IllegalArgumentException.class, () -> RedisBackoff.exponential(Duration.ofMillis(-1)))
        .getMessage(), equalTo("the retry budget must not be negative, not -1 ms"));
  }

  @Test
  void aServerThatNeverAnswersFailsAfterTheBackoffSaysStopNamingItsAddressAndTheOperation() throws Exception {
    RedisAddress nobody = RedisAddress.parse("redis://127.0.0.1:" + LocalProcess.freePort() + "/0");
    AtomicInteger retries = new AtomicInteger();
    RedisBackoff threeWaits = () -> new RedisBackoff.Waits() {
      int left = 3;

      @Override
      public long nextMillis() {
        return left-- > 0 ? 100 : RedisBackoff.STOP;
      }
    };
    try (RedisSession s = new RedisSession(nobody, "test", threeWaits, retries::incrementAndGet)) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> s.call("count members", new byte[] {1}, j -> 1));
      assertThat(e.getMessage(), containsString("cannot reach Redis at " + nobody + " ("));
      assertThat(e.getMessage(), containsString(") after 0.3 s of retries while trying to count members; is"
          + " redis-server running there?"));
      assertThat(retries.get(), is(3));
    }
  }
}
