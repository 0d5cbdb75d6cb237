package io.pagemark.commit.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Reads on the calling thread while changes run on another, until at least {@code changes} changes ran and at least
 * {@code minReads} reads ran during them. The writer keeps changing past {@code changes} while the reader lags (a
 * union read opens a union and reads two groups: on one server a thousand changes left room for only 100 to 200 of
 * them), so that the reads overlap the changes by construction rather than by luck, up to a deadline.
 */
final class ReadRace {
  static final long DEADLINE_MS = TimeUnit.SECONDS.toMillis(60);

  /** Something read once; its check is the caller's. */
  interface Read {
    void once() throws Exception;
  }

  private ReadRace() {}

  /** Runs the race and returns how many reads ran while the changes did. */
  static int run(int changes, int minReads, IntConsumer change, Read read) throws Exception {
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicBoolean reading = new AtomicBoolean(true);
    AtomicInteger reads = new AtomicInteger();
    long deadline = System.currentTimeMillis() + DEADLINE_MS;
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
      try {
        for (int k = 0; k < changes || (reads.get() < minReads && reading.get()); k++) {
          change.accept(k);
          if (System.currentTimeMillis() > deadline) {
            break;
          }
        }
      } finally {
        writing.set(false);
      }
    });
    try {
      while (writing.get()) {
        read.once();
        reads.incrementAndGet();
      }
    } finally {
      reading.set(false); // a read that failed stops the writer at its first thousand changes
    }
    writer.get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    return reads.get();
  }
}
