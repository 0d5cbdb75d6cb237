package io.pagemark.format;

import io.pagemark.key.KeyType;
import java.util.Objects;

/**
 * A key attribute stored in every record of a group file: its name, its type, and the roles it plays (the index's
 * sort key, the table's partition key, the table's sort key; one attribute can play several).
 */
public record KeyAttribute(String name, KeyType type, int roles) implements java.io.Serializable {
  /** The GSI's (or explicit) sort key: always the first stored attribute. */
  public static final int INDEX_SORT_KEY = 1;
  /** The base table's partition (hash) key. */
  public static final int TABLE_PARTITION_KEY = 2;
  /** The base table's sort (range) key. */
  public static final int TABLE_SORT_KEY = 4;

  public KeyAttribute {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("attribute name is empty");
    }
    if (roles <= 0 || roles > 7) {
      throw new IllegalArgumentException("roles must be a non-empty combination of the role bits");
    }
  }
}
