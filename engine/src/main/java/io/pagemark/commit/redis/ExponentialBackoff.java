package io.pagemark.commit.redis;

import java.util.concurrent.ThreadLocalRandom;

/** {@link RedisBackoff#exponential}: waits drawn from the upper half of 50 ms, 100 ms, ... 2 s, within a budget. */
record ExponentialBackoff(long budgetMillis) implements RedisBackoff {
  private static final long serialVersionUID = 1L;
  static final long BASE_MILLIS = 50;
  static final long MAX_MILLIS = 2_000;

  ExponentialBackoff {
    if (budgetMillis < 0) {
      throw new IllegalArgumentException("the retry budget must not be negative, not " + budgetMillis + " ms");
    }
  }

  @Override
  public Waits start() {
    return new Waits() {
      private int retries;
      private long waited;

      @Override
      public long nextMillis() {
        if (waited >= budgetMillis) {
          return STOP;
        }
        long cap = Math.min(MAX_MILLIS, BASE_MILLIS << Math.min(retries, 10));
        long wait = Math.min(budgetMillis - waited, ThreadLocalRandom.current().nextLong(cap / 2, cap + 1));
        retries++;
        waited += wait;
        return wait;
      }
    };
  }
}
