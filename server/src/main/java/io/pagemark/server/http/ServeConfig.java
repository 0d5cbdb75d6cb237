package io.pagemark.server.http;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.lookup.PageReader;
import io.pagemark.lookup.UnionCursor;
import java.time.Duration;
import java.util.Objects;

/**
 * What {@code pagemark serve} serves and how: the index ({@code --index}, any spec {@link io.pagemark.lookup.Indexes}
 * opens), the table and GSI it was built from, where DynamoDB is, the address to listen on and the page sizes.
 * Immutable; the constructor checks every value and throws {@link IllegalArgumentException} naming the bad one.
 *
 * @param index the index spec: a directory, {@code redis://...}, or any store with an IndexProvider
 * @param table the DynamoDB table the index was built from
 * @param gsi its GSI, or null when the index is on the table's own keys
 * @param dynamo the DynamoDB endpoint and region
 * @param bind the address to listen on (loopback by default)
 * @param port the port, 0 for any free one
 * @param freshPages pages 1..K read straight from DynamoDB ({@link PageReader#withFreshPages})
 * @param pageSize the page size when a request gives none
 * @param maxPageSize the largest page size a request may ask for
 * @param refresh how often the index's current build is looked up again
 * @param threads request threads (and DynamoDB connections)
 * @param cursors what signs and checks the "next" cursors of union pages ({@link #of} makes a random secret: cursors
 *     then work with this process only and die when it stops)
 */
public record ServeConfig(
    String index,
    String table,
    String gsi,
    DynamoConnection dynamo,
    String bind,
    int port,
    int freshPages,
    int pageSize,
    int maxPageSize,
    Duration refresh,
    int threads,
    UnionCursor cursors) {
  public static final int DEFAULT_PORT = 8080;
  public static final String DEFAULT_BIND = "127.0.0.1";
  public static final int DEFAULT_PAGE_SIZE = 20;
  public static final int DEFAULT_MAX_PAGE_SIZE = 1000;
  public static final Duration DEFAULT_REFRESH = Duration.ofSeconds(2);
  public static final int DEFAULT_THREADS = 32;

  public ServeConfig {
    Objects.requireNonNull(index, "index");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(dynamo, "dynamo");
    Objects.requireNonNull(bind, "bind");
    Objects.requireNonNull(refresh, "refresh");
    Objects.requireNonNull(cursors, "cursors");
    if (index.isBlank() || table.isBlank()) {
      throw new IllegalArgumentException("--index and --table must not be empty");
    }
    gsi = gsi == null || gsi.isBlank() ? null : gsi;
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port must be between 0 and 65535, not " + port);
    }
    if (maxPageSize < 1 || maxPageSize > PageReader.MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "--maxPageSize must be between 1 and " + PageReader.MAX_PAGE_SIZE + ", not " + maxPageSize);
    }
    if (pageSize < 1 || pageSize > maxPageSize) {
      throw new IllegalArgumentException(
          "--pageSize must be between 1 and --maxPageSize (" + maxPageSize + "), not " + pageSize);
    }
    if (freshPages < 0 || (long) freshPages * maxPageSize > PageReader.MAX_PAGE_SIZE) {
      throw new IllegalArgumentException("--freshPages must be between 0 and " + PageReader.MAX_PAGE_SIZE / maxPageSize
          + " (a fresh page K reads K * --maxPageSize items, at most " + PageReader.MAX_PAGE_SIZE + "), not "
          + freshPages);
    }
    if (refresh.isNegative() || refresh.isZero()) {
      throw new IllegalArgumentException("--refreshSeconds must be positive, not " + refresh.toMillis() / 1e3);
    }
    if (threads < 1 || threads > 1024) {
      throw new IllegalArgumentException("--threads must be between 1 and 1024, not " + threads);
    }
  }

  /** A configuration with the defaults: loopback port 8080, pages of 20 up to 1,000, no fresh pages. */
  public static ServeConfig of(String index, String table, String gsi, DynamoConnection dynamo) {
    return new ServeConfig(index, table, gsi, dynamo, DEFAULT_BIND, DEFAULT_PORT, 0, DEFAULT_PAGE_SIZE,
        DEFAULT_MAX_PAGE_SIZE, DEFAULT_REFRESH, DEFAULT_THREADS, UnionCursor.withRandomSecret());
  }

  /** The same configuration with union cursors signed by {@code cursors} (the secret every server shares). */
  public ServeConfig withCursors(UnionCursor cursors) {
    return new ServeConfig(index, table, gsi, dynamo, bind, port, freshPages, pageSize, maxPageSize, refresh,
        threads, cursors);
  }

  public ServeConfig withPort(int port) {
    return new ServeConfig(index, table, gsi, dynamo, bind, port, freshPages, pageSize, maxPageSize, refresh,
        threads, cursors);
  }

  public ServeConfig withRefresh(Duration refresh) {
    return new ServeConfig(index, table, gsi, dynamo, bind, port, freshPages, pageSize, maxPageSize, refresh,
        threads, cursors);
  }

  public ServeConfig withFreshPages(int freshPages) {
    return new ServeConfig(index, table, gsi, dynamo, bind, port, freshPages, pageSize, maxPageSize, refresh,
        threads, cursors);
  }

  public ServeConfig withPageSizes(int pageSize, int maxPageSize) {
    return new ServeConfig(index, table, gsi, dynamo, bind, port, freshPages, pageSize, maxPageSize, refresh,
        threads, cursors);
  }
}
