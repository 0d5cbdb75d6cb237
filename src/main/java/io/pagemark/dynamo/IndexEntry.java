package io.pagemark.dynamo;

import io.pagemark.key.KeyValue;
import java.util.Comparator;
import java.util.List;

/**
 * One item as the index sees it: its group key and its stored key values (the sort key first, then the table keys
 * that are neither group nor sort key; see {@link KeySchema#storedAttributes()}).
 */
public record IndexEntry(KeyValue group, List<KeyValue> keys) {
  /**
   * DynamoDB's ascending order within a group, by sort key; entries with equal sort keys follow the unsigned bytes
   * of their remaining keys, which makes the order total and deterministic (DynamoDB's own order of such ties is
   * learned separately, see docs/order.md).
   */
  public static final Comparator<IndexEntry> ORDER = IndexEntry::compareKeys;

  public IndexEntry {
    keys = List.copyOf(keys);
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("an entry needs at least its sort key");
    }
  }

  public KeyValue sortKey() {
    return keys.get(0);
  }

  private static int compareKeys(IndexEntry a, IndexEntry b) {
    int c = a.sortKey().compareTo(b.sortKey());
    for (int i = 1; c == 0 && i < a.keys.size(); i++) {
      c = java.util.Arrays.compareUnsigned(a.keys.get(i).sortableBytes(), b.keys.get(i).sortableBytes());
    }
    return c;
  }
}
