package io.pagemark.lookup;

import io.pagemark.key.KeyValue;
import java.util.List;

/**
 * One page of a group as DynamoDB items, with what the index says about the group and what reading the page cost. An
 * immutable value (its items are as immutable as the type {@code T} is).
 *
 * <p>{@code items} holds {@code pageSize} items, fewer only when the group ends first (DynamoDB had no more items after
 * the page's start). {@code count} and {@code pages} are the group's as of the index's build {@code buildId}.
 *
 * @param <T> the type of an item (raw items, or what an Enhanced Client table schema maps them to)
 * @param group the group key
 * @param page the page number, from 1
 * @param pageSize items a page (the last page of a group may hold fewer)
 * @param order the order the group was read in
 * @param count the group's items in the build
 * @param pages the group's pages of {@code pageSize} in the build
 * @param buildId the build of the index that placed the page
 * @param items the page's items, in {@code order}
 * @param fresh whether the page was read from the start of the group rather than from the index's start key
 * @param stale whether the items differ from the keys the build holds for this page: the group changed since the
 *     build (always false for a fresh page, which is not compared)
 * @param staleReason the first difference found, for logs; null when not stale
 * @param requests Query requests the page took (those of reads started over because the group was republished
 *     included)
 * @param consumedReadCapacity read capacity units DynamoDB reported for them (0 when it reports none)
 */
public record ItemPage<T>(
    KeyValue group,
    long page,
    int pageSize,
    Order order,
    long count,
    long pages,
    String buildId,
    List<T> items,
    boolean fresh,
    boolean stale,
    String staleReason,
    int requests,
    double consumedReadCapacity) {
  /**
   * Copies the items.
   *
   * @throws NullPointerException if {@code items} is null or holds null
   */
  public ItemPage {
    items = List.copyOf(items);
  }
}
