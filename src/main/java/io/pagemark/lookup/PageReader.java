package io.pagemark.lookup;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbIndex;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads page N of a group as DynamoDB items: the index gives the page's exclusive start key, one Query reads the
 * page from there (more Queries only while DynamoDB returns fewer items than asked, as it does at 1 MB), so page
 * 10,000 costs what page 1 costs. Every page is compared with the keys the index holds for it; when they differ the
 * group changed since the build, and the page is still returned full but marked {@linkplain ItemPage#stale() stale},
 * counted in {@link PageMetrics} and logged. With {@link #withFreshPages} the first pages come straight from DynamoDB.
 *
 * <p>A reader is immutable and thread-safe when its index is; it closes neither the client nor the index.
 */
public final class PageReader<T> {
  /**
   * The largest page: a Query reads at most 1 MB, so no request can be asked for more items than this. The page
   * size times the fresh page count must not exceed it either.
   */
  public static final int MAX_PAGE_SIZE = 1_000_000;

  private static final Logger LOG = LoggerFactory.getLogger(PageReader.class);

  private final DynamoDbClient client;
  private final String table;
  private final String gsi;
  private final Index index;
  private final Function<Map<String, AttributeValue>, T> mapper;
  private final int freshPages;
  private final PageMetrics metrics;

  private PageReader(
      DynamoDbClient client,
      String table,
      String gsi,
      Index index,
      Function<Map<String, AttributeValue>, T> mapper,
      int freshPages,
      PageMetrics metrics) {
    this.client = Objects.requireNonNull(client, "client");
    this.table = Objects.requireNonNull(table, "table");
    this.gsi = gsi;
    this.index = Objects.requireNonNull(index, "index");
    this.mapper = mapper;
    this.freshPages = freshPages;
    this.metrics = metrics;
  }

  /**
   * Pages of a table's GSI as raw items. {@code gsi} is null when the index was built on the table's own keys (the
   * group key is the table's partition key).
   */
  public static PageReader<Map<String, AttributeValue>> of(
      DynamoDbClient client, String table, String gsi, Index index) {
    return new PageReader<>(client, table, gsi, index, item -> item, 0, new PageMetrics());
  }

  /**
   * Pages of an Enhanced Client index, items mapped with its table schema ({@code TableSchema.mapToItem}; enhanced
   * client extensions are not applied to them). The Query goes through {@code client}, which reports the consumed
   * capacity the enhanced API of this SDK version does not.
   */
  public static <T> PageReader<T> of(DynamoDbClient client, DynamoDbIndex<T> gsi, Index index) {
    return new PageReader<>(
        client, gsi.tableName(), gsi.indexName(), index, gsi.tableSchema()::mapToItem, 0, new PageMetrics());
  }

  /** As {@link #of(DynamoDbClient, DynamoDbIndex, Index)}, for an index built on the table's own keys. */
  public static <T> PageReader<T> of(DynamoDbClient client, DynamoDbTable<T> table, Index index) {
    return new PageReader<>(
        client, table.tableName(), null, index, table.tableSchema()::mapToItem, 0, new PageMetrics());
  }

  /**
   * Serves pages 1..{@code pages} straight from DynamoDB, so items written since the build show there: page p is
   * one read of the group's first {@code p * pageSize} items, of which the last {@code pageSize} are kept. Such a
   * page costs p times a page read from the index, and an item may show again on page {@code pages + 1}, which the
   * index still places as of its build. 0 (the default) turns this off.
   */
  public PageReader<T> withFreshPages(int pages) {
    if (pages < 0) {
      throw new IllegalArgumentException("fresh pages must be 0 or more, not " + pages);
    }
    return new PageReader<>(client, table, gsi, index, mapper, pages, metrics);
  }

  /** Counts into the given metrics (shared with other readers, say) instead of this reader's own. */
  public PageReader<T> withMetrics(PageMetrics metrics) {
    return new PageReader<>(client, table, gsi, index, mapper, freshPages, Objects.requireNonNull(metrics));
  }

  /** What this reader has done so far. */
  public PageMetrics metrics() {
    return metrics;
  }

  /** {@link #read(KeyValue, long, int, Order)} for a group given as text (decimal for numbers, base64 for binary). */
  public ItemPage<T> read(String group, long page, int pageSize, Order order) throws LookupException, IOException {
    KeyValue key;
    try {
      key = KeyValue.parse(index.groupType(), group);
    } catch (IllegalArgumentException e) {
      throw new GroupNotFoundException(
          "group \"" + group + "\" cannot be a key of this index (its group keys are of type " + index.groupType()
              + "): " + e.getMessage());
    }
    return read(key, page, pageSize, order);
  }

  /**
   * Reads a page. Throws {@link GroupNotFoundException} when the build has no such group,
   * {@link PageOutOfRangeException} when the page is past the group's last page in the build, and
   * {@link IllegalArgumentException} for a page below 1, a page size outside 1..{@link #MAX_PAGE_SIZE}, or a fresh
   * page that would read more than {@link #MAX_PAGE_SIZE} items. DynamoDB's own errors pass through as the SDK's
   * exceptions.
   */
  public ItemPage<T> read(KeyValue group, long page, int pageSize, Order order) throws LookupException, IOException {
    checkRequest(page, pageSize);
    Objects.requireNonNull(order, "order");
    try (GroupPages pages = index.group(group)) {
      PageStart start = pages.pageStart(page, pageSize, order);
      boolean fresh = page <= freshPages;
      PageQuery query = new PageQuery(client, table, gsi, pages.groupAttribute());
      PageQuery.Page read = query.fetch(fresh ? fromGroupStart(start) : start);
      String stale = fresh ? null : difference(pages, start, read.items());
      List<T> items = new ArrayList<>(read.items().size());
      for (Map<String, AttributeValue> item : read.items()) {
        items.add(mapper.apply(item));
      }
      ItemPage<T> result =
          new ItemPage<>(group, page, pageSize, order, pages.count(), start.pages(), pages.buildId(), items, fresh,
              stale != null, stale, read.requests(), read.consumedReadCapacity());
      metrics.record(result);
      if (stale != null) {
        LOG.warn("group {} is stale in build {} of the index: {}; pages are numbered as of the build until the next"
            + " build or commit", group, pages.buildId(), stale);
      }
      return result;
    }
  }

  private void checkRequest(long page, int pageSize) {
    if (page < 1) {
      throw new IllegalArgumentException("page must be 1 or more, not " + page);
    }
    if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "page size must be between 1 and " + MAX_PAGE_SIZE + ", not " + pageSize);
    }
    if (page <= freshPages && page * pageSize > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException("fresh page " + page + " of " + pageSize + " would read " + page * pageSize
          + " items, more than " + MAX_PAGE_SIZE + "; serve fewer fresh pages");
    }
  }

  /** The same page read from the start of the group: its first (page - 1) * pageSize items are dropped. */
  private static PageStart fromGroupStart(PageStart s) {
    return new PageStart(s.group(), s.page(), s.pageSize(), s.order(), s.count(), s.pages(), null,
        (s.page() - 1) * s.pageSize());
  }

  /**
   * The first difference between the items DynamoDB returned for a page and the keys the build holds at the page's
   * positions, or null when there is none. Inside a run of equal sort keys whose order the build does not know, only
   * the sort key is compared.
   */
  private static String difference(GroupPages pages, PageStart start, List<Map<String, AttributeValue>> items)
      throws IOException {
    long first = (start.page() - 1) * start.pageSize();
    long expected = Math.min(start.pageSize(), pages.count() - first);
    String sortAttribute = pages.sortAttribute();
    for (int i = 0; i < items.size(); i++) {
      Map<String, AttributeValue> item = items.get(i);
      if (i >= expected) {
        return "page " + start.page() + " (" + start.order().label() + ") holds " + expected
            + " items in the build but DynamoDB has more, starting with " + describe(item, pages);
      }
      GroupPages.Expected e = pages.expectedAt(first + i, start.order());
      if (!matches(e, item, sortAttribute)) {
        return "item " + (first + i + 1) + " of the group (" + start.order().label() + ") is "
            + describe(PageQuery.toAttributeValues(e.key()), pages) + " in the build but "
            + describe(item, pages) + " in DynamoDB";
      }
    }
    if (items.size() < expected) {
      return "page " + start.page() + " (" + start.order().label() + ") holds " + expected
          + " items in the build but DynamoDB has only " + items.size();
    }
    return null;
  }

  private static boolean matches(GroupPages.Expected e, Map<String, AttributeValue> item, String sortAttribute) {
    for (Map.Entry<String, KeyValue> k : e.key().entrySet()) {
      if (!e.exact() && !k.getKey().equals(sortAttribute)) {
        continue;
      }
      AttributeValue v = item.get(k.getKey());
      if (v == null) {
        return false;
      }
      try {
        if (!ItemKeys.keyValue(k.getKey(), k.getValue().type(), v).equals(k.getValue())) {
          return false;
        }
      } catch (IllegalArgumentException wrongTypeOrEmpty) {
        return false;
      }
    }
    return true;
  }

  private static String describe(Map<String, AttributeValue> item, GroupPages pages) {
    return ItemKeys.describe(item, pages.keyAttributes());
  }
}
