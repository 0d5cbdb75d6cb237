package io.pagemark.lookup;

import io.pagemark.key.KeyValue;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where page {@code page} of a group starts: a Query on the index for the group, in {@code order}, from
 * {@code exclusiveStartKey} (null: from the start of the group), that reads {@code skip + pageSize} items and drops
 * the first {@code skip}, returns exactly the page DynamoDB's own cursor walk returns.
 *
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
  public PageStart {
    exclusiveStartKey =
        exclusiveStartKey == null ? null : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(exclusiveStartKey));
  }
}
