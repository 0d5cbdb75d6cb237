package io.pagemark.lookup;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Opens an index from an {@code --index} value, whatever stores it: a directory written by backfill, a Redis index
 * ({@code redis://HOST[:PORT][/DB][?prefix=P]}, which needs the optional Jedis dependency), a PostgreSQL index
 * ({@code jdbc:postgresql://HOST[:PORT]/DB[?currentSchema=S]}, which needs the optional PostgreSQL driver and
 * HikariCP), the same files in S3 ({@code s3://BUCKET/PREFIX[?endpoint=URL]}, which needs the optional AWS SDK
 * {@code s3} artifact), page markers inside DynamoDB ({@code dynamodb://TABLE/MARKER_INDEX[?endpoint=URL]}, pages of
 * the built size only), or any other store whose {@link IndexProvider} is on the classpath. The only way in for an
 * application; thread-safe (it holds no state).
 *
 * <pre>{@code
 * try (Index index = Indexes.open("/data/comments-index");
 *      GroupPages group = index.group("SKU-1")) {
 *   PageStart p = group.pageStart(292, 20, Order.ASC);
 *   // Query with ExclusiveStartKey p.exclusiveStartKeyAttributes(), Limit p.skip() + 20, drop p.skip() items
 * }
 * }</pre>
 */
public final class Indexes {
  private Indexes() {}

  /**
   * Opens the current build of the index; the caller closes it.
   *
   * @throws NullPointerException if {@code spec} is null
   * @throws IllegalArgumentException if no provider accepts the spec, or the spec is malformed
   * @throws IOException when the index is missing, unreachable or damaged
   */
  public static Index open(String spec) throws IOException {
    return provider(spec).open(spec);
  }

  /**
   * Opens a given build of the index (a pinned reader keeps stable pages while newer builds are published); the
   * caller closes it. A store that keeps only the live build of each group (Redis) answers a group only while it
   * holds that build of it.
   *
   * @throws NullPointerException if either argument is null
   * @throws IllegalArgumentException if no provider accepts the spec, or the spec or build id is malformed
   * @throws IOException when the index or the build is missing, unreachable or damaged
   */
  public static Index open(String spec, String buildId) throws IOException {
    Objects.requireNonNull(buildId, "buildId");
    return provider(spec).open(spec, buildId);
  }

  private static IndexProvider provider(String spec) {
    Objects.requireNonNull(spec, "spec");
    List<String> usages = new ArrayList<>();
    List<IndexProvider> providers = providers();
    for (IndexProvider p : providers) {
      if (p.accepts(spec)) {
        return p;
      }
      usages.add(p.usage());
    }
    throw new IllegalArgumentException(
        "no index store takes \"" + spec + "\"; give one of: " + String.join(", ", usages));
  }

  /** The providers on the classpath, the file provider (which takes any plain path) last. */
  static List<IndexProvider> providers() {
    List<IndexProvider> found = new ArrayList<>();
    IndexProvider files = null;
    try {
      for (IndexProvider p : ServiceLoader.load(IndexProvider.class, Indexes.class.getClassLoader())) {
        if (p.getClass().getName().equals("io.pagemark.lookup.file.FileIndexProvider")) {
          files = p;
        } else {
          found.add(p);
        }
      }
    } catch (ServiceConfigurationError e) {
      throw new IllegalStateException("an index store's provider cannot be loaded: " + e.getMessage(), e);
    }
    if (files != null) {
      found.add(files);
    }
    return found;
  }
}
