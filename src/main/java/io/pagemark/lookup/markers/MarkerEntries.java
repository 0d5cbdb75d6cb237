package io.pagemark.lookup.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PagedGroup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * A group's entries read from the table itself, placed by its markers. The entries at a position cost the page
 * start's marker Query and the GSI Queries from it (less than a page is read and dropped). A descending read also
 * reads the entries on either side, because an entry that shares its sort key needs the ascending rank DynamoDB gives
 * it inside its run. An entry's position costs about log2(pages) marker Queries (a binary search on the markers' sort
 * keys), a count of less than a page, and a read of the entry's run of equal sort keys. Used for one call; not
 * thread-safe.
 */
final class MarkerEntries {
  /** The most items one Query asks for (a Query also stops at 1 MB). */
  private static final int QUERY_LIMIT = 1000;

  private final MarkerGroup markers;
  private final DynamoDbClient client;
  private final MarkerConfig config;
  private final KeyValue group;
  private final long count;
  private final String sortName;
  private final Map<KeyValue, Long> below = new HashMap<>();
  private final Map<KeyValue, List<List<KeyValue>>> ascendingRuns = new HashMap<>();

  MarkerEntries(MarkerGroup markers, DynamoDbClient client, MarkerConfig config, KeyValue group, long count) {
    this.markers = markers;
    this.client = client;
    this.config = config;
    this.group = group;
    this.count = count;
    this.sortName = config.schema().sortAttribute().name();
  }

  List<GroupPages.Entry> entries(long position, int n, Order order) throws IOException {
    long size = config.pageSize();
    long pageAt = position - position % size;
    PagedGroup.Start start = markers.startAt(pageAt, order);
    long drop = start.skip() + (position - pageAt);
    long want = Math.min(n, count - position);
    boolean descending = order == Order.DESC;
    long first = descending && drop > 0 ? drop - 1 : drop;
    long take = (drop - first) + want + (descending ? 1 : 0);
    List<Map<String, KeyValue>> keys = read("#g = :g", Map.of(), order, start.exclusiveStartKey(), first, take);
    List<GroupPages.Entry> entries = new ArrayList<>();
    int at = (int) (drop - first);
    for (int i = 0; i < want && at + i < keys.size(); i++) {
      Map<String, KeyValue> key = keys.get(at + i);
      long rank;
      if (!descending) {
        rank = position + i;
      } else {
        KeyValue sort = key.get(sortName);
        Map<String, KeyValue> previous = at + i > 0 ? keys.get(at + i - 1) : start.exclusiveStartKey();
        Map<String, KeyValue> next = at + i + 1 < keys.size() ? keys.get(at + i + 1) : null;
        boolean inRun = (previous != null && sort.equals(previous.get(sortName)))
            || (next != null && sort.equals(next.get(sortName)));
        // outside a run of equal sort keys, the descending order is the ascending one reversed
        rank = inRun ? ascendingRank(stored(key)) : count - 1 - (position + i);
      }
      entries.add(new GroupPages.Entry(key, rank));
    }
    return entries;
  }

  long positionOf(List<KeyValue> keys, Order order) throws IOException {
    KeyValue sort = keys.get(0);
    if (order == Order.ASC) {
      return ascendingRank(keys);
    }
    List<List<KeyValue>> run = run(sort, Order.DESC);
    int d = run.indexOf(keys);
    return d < 0 ? -1 : count - below(sort) - run.size() + d;
  }

  private long ascendingRank(List<KeyValue> keys) throws IOException {
    KeyValue sort = keys.get(0);
    List<List<KeyValue>> run = ascendingRuns.get(sort);
    if (run == null) {
      run = run(sort, Order.ASC);
      ascendingRuns.put(sort, run);
    }
    int a = run.indexOf(keys);
    return a < 0 ? -1 : below(sort) + a;
  }

  /**
   * Entries whose sort key is below {@code sort}: the last marker below it (a binary search: marker k ends ascending
   * page k), then a count of the items after it that are still below, fewer than two pages.
   */
  private long below(KeyValue sort) throws IOException {
    Long known = below.get(sort);
    if (known != null) {
      return known;
    }
    long size = config.pageSize();
    long lo = 0;
    long hi = count / size;
    Map<String, AttributeValue> at = null;
    while (lo < hi) {
      long mid = (lo + hi + 1) >>> 1;
      Map<String, AttributeValue> m = markers.marker(mid);
      if (m == null) {
        throw new IOException("group " + group + " has " + count + " items but no marker " + mid + " in "
            + config.markerIndex() + ": the markers are being rewritten or were removed; run pagemark markers"
            + " build again if this persists");
      }
      if (markers.startKey(m).get(sortName).compareTo(sort) < 0) {
        lo = mid;
        at = m;
      } else {
        hi = mid - 1;
      }
    }
    if (lo > 0 && at == null) {
      at = markers.marker(lo);
    }
    Map<String, AttributeValue> from = at == null ? null : attributeValues(markers.startKey(at));
    long n = lo * size;
    do {
      QueryRequest.Builder q = query("#g = :g AND #s < :s", Map.of(":s", ItemKeys.attributeValue(sort)), Order.ASC,
          false);
      if (from != null) {
        q.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(q.build());
      n += r.count();
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null);
    below.put(sort, n);
    return n;
  }

  /** The stored key values of every entry with sort key {@code sort}, in the order DynamoDB reads them. */
  private List<List<KeyValue>> run(KeyValue sort, Order order) throws IOException {
    List<List<KeyValue>> run = new ArrayList<>();
    for (Map<String, KeyValue> key : read("#g = :g AND #s = :s", Map.of(":s", ItemKeys.attributeValue(sort)),
        order, null, 0, Long.MAX_VALUE)) {
      run.add(stored(key));
    }
    return run;
  }

  /** The keys of {@code take} items of a GSI Query after the first {@code drop} it returns. */
  private List<Map<String, KeyValue>> read(String condition, Map<String, AttributeValue> values, Order order,
      Map<String, KeyValue> exclusiveStartKey, long drop, long take) throws IOException {
    List<Map<String, KeyValue>> keys = new ArrayList<>();
    Map<String, AttributeValue> from = exclusiveStartKey == null ? null : attributeValues(exclusiveStartKey);
    long skipped = 0;
    do {
      long wanted = drop - skipped + take - keys.size();
      QueryRequest.Builder q = query(condition, values, order, true).limit((int) Math.min(QUERY_LIMIT, wanted));
      if (from != null) {
        q.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(q.build());
      for (Map<String, AttributeValue> item : r.items()) {
        if (skipped < drop) {
          skipped++;
        } else if (keys.size() < take) {
          keys.add(markers.startKey(item));
        }
      }
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
    } while (from != null && keys.size() < take);
    return keys;
  }

  /**
   * A Query of the GSI whose pages the markers number, in this group; with {@code keys}, of the key attributes only
   * (else for a count).
   */
  private QueryRequest.Builder query(String condition, Map<String, AttributeValue> values, Order order,
      boolean keys) {
    Map<String, String> names = new HashMap<>();
    names.put("#g", config.schema().groupAttribute());
    names.put("#s", sortName);
    StringBuilder projection = new StringBuilder("#g,#s");
    List<KeyAttribute> attributes = config.schema().storedAttributes();
    for (int i = 1; keys && i < attributes.size(); i++) {
      names.put("#k" + i, attributes.get(i).name());
      projection.append(",#k").append(i);
    }
    Map<String, AttributeValue> all = new HashMap<>(values);
    all.put(":g", ItemKeys.attributeValue(group));
    QueryRequest.Builder q = QueryRequest.builder()
        .tableName(config.schema().table())
        .indexName(config.schema().indexName())
        .keyConditionExpression(condition)
        .expressionAttributeNames(names)
        .expressionAttributeValues(all)
        .scanIndexForward(order.scanIndexForward());
    return keys ? q.projectionExpression(projection.toString()) : q.select(Select.COUNT);
  }

  /** The stored key values of an entry's key (the sort key first), as a member or a record holds them. */
  private List<KeyValue> stored(Map<String, KeyValue> key) {
    List<KeyValue> values = new ArrayList<>();
    for (KeyAttribute a : config.schema().storedAttributes()) {
      values.add(key.get(a.name()));
    }
    return values;
  }

  private static Map<String, AttributeValue> attributeValues(Map<String, KeyValue> key) {
    Map<String, AttributeValue> m = new HashMap<>();
    key.forEach((name, value) -> m.put(name, ItemKeys.attributeValue(value)));
    return m;
  }
}
