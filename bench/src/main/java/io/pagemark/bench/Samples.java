package io.pagemark.bench;

import java.util.Arrays;

/** Timed samples in nanoseconds and their percentiles (nearest rank). */
final class Samples {
  private final long[] nanos;
  private int n;

  Samples(int capacity) {
    nanos = new long[capacity];
  }

  void add(long elapsedNanos) {
    nanos[n++] = elapsedNanos;
  }

  int count() {
    return n;
  }

  /** The mean in microseconds. */
  double meanMicros() {
    if (n == 0) {
      throw new IllegalStateException("no samples");
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += nanos[i];
    }
    return sum / n / 1e3;
  }

  /** The nearest-rank percentile {@code p} (0 &lt; p &le; 100) in microseconds. */
  double percentileMicros(double p) {
    if (n == 0) {
      throw new IllegalStateException("no samples");
    }
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("percentile " + p);
    }
    long[] sorted = Arrays.copyOf(nanos, n);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * n);
    return sorted[Math.max(0, rank - 1)] / 1e3;
  }
}
