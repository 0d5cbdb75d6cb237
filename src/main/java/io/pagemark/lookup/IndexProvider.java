package io.pagemark.lookup;

import java.io.IOException;

/**
 * Service provider interface: opens the indexes of one store, for {@link Indexes#open}. Each store's reader package
 * (files, Redis, ...) has one, listed in {@code META-INF/services/io.pagemark.lookup.IndexProvider}, so that every
 * reader (the library, the CLI, the servers) takes any store through one {@code --index} value and adding a store
 * touches no other. Applications call {@link Indexes}, never a provider.
 *
 * <p>Implementations are stateless and thread-safe, with a public no-argument constructor; the indexes they open are
 * thread-safe. A store's {@link Index#group(io.pagemark.key.KeyValue)} answers with {@link GroupPages} over its own
 * {@link RankedGroup}, so that page starts are computed alike for every store; a store that holds only the starts of
 * pages of one size (page markers inside DynamoDB) answers with {@link GroupPages} over its {@link PagedGroup}.
 */
public interface IndexProvider {
  /**
   * Whether this provider opens the index an {@code --index} value names (by its scheme, such as {@code redis://};
   * the file provider takes a plain path). Never throws: a spec it does not recognise is another store's.
   */
  boolean accepts(String spec);

  /**
   * Opens the index's current build.
   *
   * @throws IOException when the index is missing, unreachable or damaged; the message says which and what to do
   * @throws IllegalArgumentException when the spec is malformed
   */
  Index open(String spec) throws IOException;

  /**
   * Opens a given build of the index.
   *
   * @throws IOException as {@link #open(String)}, also when the store does not hold that build
   * @throws IllegalArgumentException when the spec or the build id is malformed
   */
  Index open(String spec, String buildId) throws IOException;

  /** The forms of spec this provider accepts, for error messages: {@code redis://HOST[:PORT][/DB][?prefix=P]}. */
  String usage();
}
