package io.pagemark.lookup;

import io.pagemark.lookup.file.FileIndex;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;

/**
 * One build of an index, whatever stores it, opened for lookups. Open one with {@link Indexes#open(String)}. Every
 * lookup through one object sees one build.
 */
public interface Index extends AutoCloseable {
  /** The build this object reads. */
  String buildId();

  /** The type of the index's group keys. */
  KeyType groupType();

  /**
   * Opens a group's pages; the caller closes them. Throws {@link GroupNotFoundException} when the build has no such
   * group, {@link IllegalArgumentException} when the key is not of {@link #groupType()}.
   */
  GroupPages group(KeyValue key) throws IOException, GroupNotFoundException;

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

  /** A group given as text (decimal for numbers, base64 for binary group keys). */
  default GroupPages group(String text) throws IOException, GroupNotFoundException {
    return group(KeyValue.parse(groupType(), text));
  }

  @Override
  void close() throws IOException;
}
