package io.pagemark.lookup;

import io.pagemark.key.KeyValue;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Where page {@code page} of a union of groups starts: per group, one Query from {@code exclusiveStartKey} that drops
 * {@code skip} items and keeps {@code take}; merged by the union's order (see {@code docs/unions.md}), these items
 * are exactly the page. An immutable value.
 *
 * @param groups the union's group keys, in DynamoDB's order of group keys
 * @param page the page number, from 1
 * @param pageSize entries a page
 * @param order the order the union is read in
 * @param count entries of the union (the sum of its groups' counts) in the build
 * @param pages number of pages of {@code pageSize}
 * @param buildId the build every group was read from
 * @param starts one per group, in the order of {@code groups}
 * @param recordReads records read from the index to place the page: one per positioned read of a record (a group
 *     file record, a Redis {@code ZRANGE} of one member, a row), each distinct rank counted once, the selection's and
 *     the start keys' together
 */
public record UnionPageStart(
    List<KeyValue> groups,
    long page,
    int pageSize,
    Order order,
    long count,
    long pages,
    String buildId,
    List<GroupStart> starts,
    long recordReads) {
  /** Copies the lists. */
  public UnionPageStart {
    groups = List.copyOf(groups);
    starts = List.copyOf(starts);
  }

  /** The rank in the union (0-based, in {@code order}) of the page's first item. */
  public long firstRank() {
    return (page - 1) * pageSize;
  }

  /**
   * One group's share of a union's page: read the group in the page's order from {@code exclusiveStartKey} (null: from
   * its start), drop {@code skip} items, keep {@code take} (0: the group has no item on the page; send no Query).
   *
   * @param group the group key
   * @param before items of the group, in the page's order, that earlier pages of the union hold
   * @param exclusiveStartKey every key attribute the Query needs (group key, sort key, table keys), or null
   * @param skip items to drop from the start of the Query's results
   * @param take items of the group on the page
   */
  public record GroupStart(
      KeyValue group, long before, Map<String, KeyValue> exclusiveStartKey, long skip, long take) {
    /** Copies the start key, which stays in its given order. */
    public GroupStart {
      exclusiveStartKey =
          exclusiveStartKey == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(exclusiveStartKey));
    }

    /** The exclusive start key as a Query request takes it, or null; a new mutable map on every call. */
    public Map<String, AttributeValue> exclusiveStartKeyAttributes() {
      return PageStart.attributeValues(exclusiveStartKey);
    }
  }
}
