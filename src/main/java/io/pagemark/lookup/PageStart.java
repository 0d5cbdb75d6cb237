package io.pagemark.lookup;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.key.KeyValue;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Where page {@code page} of a group starts: a Query on the index for the group, in {@code order}, from
 * {@code exclusiveStartKey} (null: from the start of the group), that reads {@code skip + pageSize} items and drops
 * the first {@code skip}, returns exactly the page DynamoDB's own cursor walk returns. An immutable value.
 *
 * @param group the group key
 * @param page the page number, from 1
 * @param pageSize entries a page
 * @param order the order the group is read in
 * @param count entries of the group in the index
 * @param pages number of pages of {@code pageSize} ({@code ceil(count / pageSize)})
 * @param exclusiveStartKey every key attribute the Query needs (group key, sort key, table keys), or null
 * @param skip items to drop from the start of the Query's results (non-zero only where DynamoDB's order of equal sort
 *     keys was unknown when the index was built)
 */
public record PageStart(
    KeyValue group,
    long page,
    int pageSize,
    Order order,
    long count,
    long pages,
    Map<String, KeyValue> exclusiveStartKey,
    long skip) {
  /** Copies the start key, which stays in its given order; the other components are taken as given. */
  public PageStart {
    exclusiveStartKey =
        exclusiveStartKey == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(exclusiveStartKey));
  }

  /**
   * The exclusive start key as a Query request takes it ({@code QueryRequest.Builder#exclusiveStartKey}), or null
   * when the page starts at the group's start; a new mutable map on every call.
   */
  public Map<String, AttributeValue> exclusiveStartKeyAttributes() {
    return attributeValues(exclusiveStartKey);
  }

  /** A key as the SDK takes it (null stays null). */
  static Map<String, AttributeValue> attributeValues(Map<String, KeyValue> key) {
    if (key == null) {
      return null;
    }
    Map<String, AttributeValue> m = new HashMap<>();
    key.forEach((k, v) -> m.put(k, ItemKeys.attributeValue(v)));
    return m;
  }
}
