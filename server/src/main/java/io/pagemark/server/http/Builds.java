package io.pagemark.server.http;

import io.pagemark.lookup.Index;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open builds of one index: its current build, looked up again at most once per refresh interval (one request
 * does it while the others go on with the build they have), and a few pinned builds ({@code &build=ID}), least
 * recently used first out. A request holds a {@link Lease} on one open build for its whole duration, so a build that
 * is replaced or evicted is closed only once no request reads it: one response never mixes two builds.
 */
final class Builds implements AutoCloseable {
  /** Opens an index spec, at a build or (null) at its current one; {@code Indexes::open} in production. */
  interface Opener {
    Index open(String spec, String buildId) throws IOException;
  }

  private static final Logger LOG = LoggerFactory.getLogger(Builds.class);
  static final int PINNED_BUILDS = 8;

  private final String spec;
  private final Opener opener;
  private final long refreshNanos;
  private final LongSupplier clock;
  private final ReentrantLock refreshing = new ReentrantLock();
  private volatile Shared current;
  private volatile long checkedAt;
  private final Map<String, Shared> pinned = new LinkedHashMap<>(16, 0.75f, true);
  private boolean closed;

  Builds(String spec, Opener opener, long refreshNanos, LongSupplier clock) {
    this.spec = spec;
    this.opener = opener;
    this.refreshNanos = refreshNanos;
    this.clock = clock;
  }

  /** One open build, held by a request until it closes the lease. */
  static final class Lease implements AutoCloseable {
    private final Shared shared;
    private boolean released;

    private Lease(Shared shared) {
      this.shared = shared;
    }

    Index index() {
      return shared.index;
    }

    @Override
    public void close() {
      if (!released) {
        released = true;
        shared.release();
      }
    }
  }

  /** An index with a count of its holders: the cache holds one until the build is replaced or evicted. */
  private static final class Shared {
    final Index index;
    final AtomicInteger holders = new AtomicInteger(1);

    Shared(Index index) {
      this.index = index;
    }

    boolean acquire() {
      for (int n = holders.get(); n > 0; n = holders.get()) {
        if (holders.compareAndSet(n, n + 1)) {
          return true;
        }
      }
      return false;
    }

    void release() {
      if (holders.decrementAndGet() == 0) {
        try {
          index.close();
        } catch (IOException | RuntimeException e) {
          LOG.warn("closing build {} failed: {}", index.buildId(), e.toString());
        }
      }
    }
  }

  /**
   * The current build. Throws the store's {@link IOException} when there is no current build yet or the first
   * lookup fails; a failed later lookup keeps the build already open (and logs why).
   */
  Lease current() throws IOException {
    for (;;) {
      Shared c = current;
      long now = clock.getAsLong();
      if (c == null || now - checkedAt >= refreshNanos) {
        if (c == null) {
          refreshing.lock();
        } else if (!refreshing.tryLock()) {
          if (c.acquire()) {
            return new Lease(c); // another request is looking up CURRENT; this one reads the build it has
          }
          continue;
        }
        try {
          c = refresh();
        } finally {
          refreshing.unlock();
        }
      }
      if (c.acquire()) {
        return new Lease(c);
      }
    }
  }

  private Shared refresh() throws IOException {
    Shared c = current;
    long now = clock.getAsLong();
    if (c != null && now - checkedAt < refreshNanos) {
      return c; // refreshed by the request that held the lock before this one
    }
    Index fresh;
    try {
      fresh = opener.open(spec, null);
    } catch (IOException | RuntimeException e) {
      if (c == null) {
        throw e;
      }
      checkedAt = now;
      LOG.warn("looking up the current build of {} failed, serving build {} until the next try: {}", spec,
          c.index.buildId(), e.toString());
      return c;
    }
    checkedAt = now;
    if (c != null && c.index.buildId().equals(fresh.buildId())) {
      fresh.close();
      return c;
    }
    Shared next = new Shared(fresh);
    synchronized (this) {
      if (closed) {
        fresh.close();
        throw new IOException("the server is shutting down");
      }
      current = next;
    }
    if (c != null) {
      LOG.info("index {}: current build is now {} (was {})", spec, fresh.buildId(), c.index.buildId());
      c.release();
    }
    return next;
  }

  /**
   * A given build. Throws {@link UnknownBuildException} when the store does not hold it (its current build opens
   * but this one does not), the store's {@link IOException} when the store itself fails.
   */
  Lease pinned(String buildId) throws IOException, UnknownBuildException {
    synchronized (this) {
      Shared s = pinned.get(buildId);
      if (s != null && s.acquire()) {
        return new Lease(s);
      }
    }
    Index index;
    try {
      index = opener.open(spec, buildId);
    } catch (IllegalArgumentException e) {
      throw new UnknownBuildException(buildId, e.getMessage());
    } catch (IOException e) {
      try (Lease storeWorks = current()) {
        throw new UnknownBuildException(buildId, e.getMessage() + "; the current build is "
            + storeWorks.index().buildId());
      }
    }
    Shared s = new Shared(index);
    s.acquire(); // this request's hold, besides the cache's
    List<Shared> evicted = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        s.release();
        s.release();
        throw new IOException("the server is shutting down");
      }
      Shared raced = pinned.put(buildId, s);
      if (raced != null) {
        evicted.add(raced);
      }
      var it = pinned.entrySet().iterator();
      while (pinned.size() > PINNED_BUILDS && it.hasNext()) {
        evicted.add(it.next().getValue());
        it.remove();
      }
    }
    evicted.forEach(Shared::release);
    return new Lease(s);
  }

  /** Raised for a {@code &build=ID} that the index does not hold. */
  static final class UnknownBuildException extends Exception {
    private static final long serialVersionUID = 1L;

    UnknownBuildException(String buildId, String detail) {
      super("build \"" + Messages.shorten(buildId) + "\" is not in the index (" + detail + "); drop &build= to"
          + " read the current build", null, false, false);
    }
  }

  /** Releases every build; leases still held close theirs when they end. */
  @Override
  public void close() {
    List<Shared> all = new ArrayList<>();
    synchronized (this) {
      closed = true;
      if (current != null) {
        all.add(current);
        current = null;
      }
      all.addAll(pinned.values());
      pinned.clear();
    }
    all.forEach(Shared::release);
  }
}
