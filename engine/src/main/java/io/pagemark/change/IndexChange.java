package io.pagemark.change;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.util.List;
import java.util.Objects;

/**
 * What one stream record changes in one group of the index: the item (by its table primary key) leaves the entry it
 * had in this group ({@code removed}), arrives at a new one ({@code added}), or both (its sort key changed). A record
 * that moves an item between groups yields one change per group. Entries are given as the index stores them: the sort
 * key first, then the table keys that are neither group nor sort key ({@link IndexEntry#keys()}).
 *
 * <p>Appliers keep, per group and item, the version of the last change they applied, and apply a change only over an
 * older one: the item is then at {@code added} (or absent from the group when it is null), and at no other entry of
 * the group. The file commit and a sorted-set sink (ZREM {@code removed}, ZADD {@code added}) apply the same rule.
 *
 * @param group the group key
 * @param itemKey the item's table primary key values (partition key, then sort key if the table has one)
 * @param version the record's version (creation time, then shard sequence number)
 * @param removed the item's entry in this group before the change, or null when it had none
 * @param added the item's entry in this group after the change, or null when it has none
 */
public record IndexChange(
    KeyValue group, List<KeyValue> itemKey, Version version, List<KeyValue> removed, List<KeyValue> added) {
  public IndexChange {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(version, "version");
    itemKey = List.copyOf(itemKey);
    removed = removed == null ? null : List.copyOf(removed);
    added = added == null ? null : List.copyOf(added);
    if (itemKey.isEmpty() || itemKey.size() > 2) {
      throw new IllegalArgumentException("an item key has one or two values, not " + itemKey.size());
    }
    if (removed == null && added == null) {
      throw new IllegalArgumentException("a change removes an entry, adds one, or both");
    }
    if (removed != null && added != null && removed.equals(added)) {
      throw new IllegalArgumentException("a change that keeps the entry is no change");
    }
  }

  /** The entry the item leaves, or null. */
  public IndexEntry removedEntry() {
    return removed == null ? null : new IndexEntry(group, removed);
  }

  /** The entry the item arrives at, or null. */
  public IndexEntry addedEntry() {
    return added == null ? null : new IndexEntry(group, added);
  }
}
