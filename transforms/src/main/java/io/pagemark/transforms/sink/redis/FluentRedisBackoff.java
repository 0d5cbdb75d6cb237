package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisBackoff;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.beam.sdk.util.BackOff;
import org.apache.beam.sdk.util.FluentBackoff;
import org.joda.time.Duration;

/**
 * How the Redis steps pace their retries, from Beam's {@link FluentBackoff}: waits from 50 ms, growing 1.5 times per
 * retry up to 2 s, each randomized by up to half, until they add up to the retry time (the last one is cut to fit);
 * a zero retry time never retries.
 */
record FluentRedisBackoff(long maxRetryMillis) implements RedisBackoff {
  private static final long serialVersionUID = 1L;
  static final Duration INITIAL = Duration.millis(50);
  static final Duration MAX = Duration.standardSeconds(2);

  FluentRedisBackoff {
    if (maxRetryMillis < 0) {
      throw new IllegalArgumentException("the retry time must not be negative, not " + maxRetryMillis + " ms");
    }
  }

  @Override
  public Waits start() {
    FluentBackoff fluent = FluentBackoff.DEFAULT.withInitialBackoff(INITIAL).withMaxBackoff(MAX);
    BackOff backoff = (maxRetryMillis == 0
        ? fluent.withMaxRetries(0)
        : fluent.withMaxCumulativeBackoff(Duration.millis(maxRetryMillis))).backoff();
    return () -> {
      try {
        long wait = backoff.nextBackOffMillis();
        return wait == BackOff.STOP ? STOP : wait;
      } catch (IOException e) {
        throw new UncheckedIOException(e); // FluentBackoff's waits are computed, never read
      }
    };
  }
}
