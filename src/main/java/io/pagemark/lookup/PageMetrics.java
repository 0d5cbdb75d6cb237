package io.pagemark.lookup;

import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what a {@link PageReader} did, with no metrics library behind them: export them to whatever the
 * application uses. {@link #stalePages()} counts pages that found their group changed since the index's build; a
 * rising count says the next build or commit is due. Thread-safe: share one between readers and threads.
 */
public final class PageMetrics {
  private final LongAdder pages = new LongAdder();
  private final LongAdder freshPages = new LongAdder();
  private final LongAdder stalePages = new LongAdder();
  private final LongAdder republishedRetries = new LongAdder();
  private final LongAdder queryRequests = new LongAdder();
  private final DoubleAdder consumedReadCapacity = new DoubleAdder();

  /** New counters, all zero. */
  public PageMetrics() {}

  /** Pages read, fresh or from the index. */
  public long pages() {
    return pages.sum();
  }

  /** Pages served straight from DynamoDB (see {@link PageReader#withFreshPages}). */
  public long freshPages() {
    return freshPages.sum();
  }

  /** Pages whose items differed from the keys the index expects for them. */
  public long stalePages() {
    return stalePages.sum();
  }

  /**
   * Reads started over because the store replaced their group with a newer build while they read it (see
   * {@link GroupRepublishedException}); frequent retries say readers race a store that republishes often.
   */
  public long republishedRetries() {
    return republishedRetries.sum();
  }

  /** Query requests sent to DynamoDB, those of reads started over included. */
  public long queryRequests() {
    return queryRequests.sum();
  }

  /** Read capacity units DynamoDB reported for those requests. */
  public double consumedReadCapacity() {
    return consumedReadCapacity.sum();
  }

  void queried(int requests, double readCapacity) {
    queryRequests.add(requests);
    consumedReadCapacity.add(readCapacity);
  }

  void republished() {
    republishedRetries.increment();
  }

  void page(ItemPage<?> page) {
    pages.increment();
    if (page.fresh()) {
      freshPages.increment();
    }
    if (page.stale()) {
      stalePages.increment();
    }
  }

  void unionPage(boolean stale) {
    pages.increment();
    if (stale) {
      stalePages.increment();
    }
  }

  @Override
  public String toString() {
    return String.format(
        "%d pages (%d fresh, %d stale, %d retried after a republish), %d Query requests, %.1f read capacity units",
        pages(), freshPages(), stalePages(), republishedRetries(), queryRequests(), consumedReadCapacity());
  }
}
