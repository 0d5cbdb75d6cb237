package io.pagemark.lookup;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;

/**
 * One build of an index, whatever stores it, opened for lookups: a group's pages by group key. Open one with
 * {@link Indexes#open(String)}; every lookup through one object sees one build (a store that publishes group by group,
 * such as Redis, answers each group from the build it holds when the group is opened).
 *
 * <p>Implementations are thread-safe: share one index between threads and close it once, when the application stops.
 */
public interface Index extends AutoCloseable {
  /** The build this object reads (for a store that publishes group by group: the last build that finished). */
  String buildId();

  /** The type of the index's group keys. */
  KeyType groupType();

  /**
   * Opens a group's pages; the caller closes them.
   *
   * @throws NullPointerException if {@code key} is null
   * @throws IllegalArgumentException when the key is not of {@link #groupType()}
   * @throws GroupNotFoundException when the build has no such group
   * @throws IOException when the store cannot be read or holds a damaged group
   */
  GroupPages group(KeyValue key) throws IOException, GroupNotFoundException;

  /**
   * A group given as text: the string itself, a decimal number, or base64 for binary group keys.
   *
   * @throws NullPointerException if {@code text} is null
   * @throws IllegalArgumentException when the text is not a key of {@link #groupType()}
   * @throws GroupNotFoundException when the build has no such group
   * @throws IOException when the store cannot be read or holds a damaged group
   */
  default GroupPages group(String text) throws IOException, GroupNotFoundException {
    return group(KeyValue.parse(groupType(), java.util.Objects.requireNonNull(text, "text")));
  }

  /**
   * Opens the union of several groups of this build ("rating 3 or 5"): its pages without storing it; the caller closes
   * it. A group the build does not hold counts as empty.
   *
   * @throws NullPointerException if {@code keys} or a key is null
   * @throws IllegalArgumentException for no key, more than {@link UnionPages#MAX_GROUPS}, a key given twice, or a key
   *     not of {@link #groupType()}
   * @throws GroupRepublishedException when the store answered two groups from two builds (open the union again)
   * @throws IOException when the store cannot be read
   */
  default UnionPages union(List<KeyValue> keys) throws IOException {
    return UnionPages.open(this, keys);
  }

  /** The group key attribute's name (the GSI's partition key), as the build recorded it. */
  String groupAttribute();

  /** The sort key attribute's name (the GSI's sort key), as the build recorded it. */
  String sortAttribute();

  /**
   * Every group of this build, in no particular order (a store that publishes group by group lists the groups it
   * holds now).
   *
   * @throws IOException when the store cannot be read
   */
  List<KeyValue> groups() throws IOException;

  /**
   * Releases what the index holds (a store's connections); groups already opened may fail afterwards.
   *
   * @throws IOException when releasing fails
   */
  @Override
  void close() throws IOException;
}
