package io.pagemark.commit.redis;

import java.io.Serializable;
import java.time.Duration;

/**
 * How {@link RedisSession} paces the retries of one operation after connection errors: every operation takes a fresh
 * {@link Waits} from {@link #start}, which says how long to wait before each next attempt, or {@link #STOP} once the
 * retries are used up. Implementations are immutable and serializable, so that a Beam DoFn can carry one: the Beam
 * transforms adapt Beam's {@code FluentBackoff}, and {@link #exponential} serves code without Beam.
 */
public interface RedisBackoff extends Serializable {
  /** What {@link Waits#nextMillis} returns when no attempt is left. */
  long STOP = -1;

  /** The waits of a new operation. */
  Waits start();

  /** The waits of one operation, in order; not thread-safe. */
  @FunctionalInterface
  interface Waits {
    /** Milliseconds to wait before the next attempt, or {@link #STOP}. */
    long nextMillis();
  }

  /**
   * Exponential waits with full jitter, from 50 ms doubling up to 2 s, until they add up to {@code budget} (the last
   * wait is cut to fit, so they add up to exactly the budget); a zero budget never retries.
   *
   * @throws IllegalArgumentException if {@code budget} is negative
   */
  static RedisBackoff exponential(Duration budget) {
    return new ExponentialBackoff(budget.toMillis());
  }
}
