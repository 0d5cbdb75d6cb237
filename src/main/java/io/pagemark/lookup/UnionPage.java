package io.pagemark.lookup;

import io.pagemark.key.KeyValue;
import java.util.List;

/**
 * One page of a union of groups as DynamoDB items, merged in the union's order, with where each group's share came
 * from and what reading it cost. An immutable value (its items are as immutable as {@code T} is).
 *
 * @param <T> the type of an item
 * @param start where the page starts: the union's groups, count and pages in the build, and one Query per group
 * @param items the page's items, in the union's order
 * @param stale whether some group's items differ from the keys the build holds for them (the group changed since)
 * @param staleReason the first difference found, for logs; null when not stale
 * @param requests Query requests the page took (one per group with items on the page, more past 1 MB)
 * @param consumedReadCapacity read capacity units DynamoDB reported for them
 */
public record UnionPage<T>(
    UnionPageStart start,
    List<T> items,
    boolean stale,
    String staleReason,
    int requests,
    double consumedReadCapacity) {
  /**
   * Copies the items.
   *
   * @throws NullPointerException if {@code items} is null or holds null
   */
  public UnionPage {
    items = List.copyOf(items);
  }

  /** The union's group keys, in DynamoDB's order. */
  public List<KeyValue> groups() {
    return start.groups();
  }

  /** The page number, from 1. */
  public long page() {
    return start.page();
  }

  /** The union's items in the build. */
  public long count() {
    return start.count();
  }

  /** The union's pages of this size in the build. */
  public long pages() {
    return start.pages();
  }
}
