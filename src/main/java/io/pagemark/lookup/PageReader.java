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
 * A group that its store republishes while a page is read ({@link GroupRepublishedException}, possible with Redis) is
 * opened again and the page read again, up to {@value #REPUBLISHED_ATTEMPTS} times in all.
 *
 * <p>A reader is immutable and thread-safe when its index is (every index of this library is); it closes neither the
 * client nor the index.
 *
 * <pre>{@code
 * PageReader<Map<String, AttributeValue>> reader = PageReader.of(dynamo, "comments", "byProduct", index);
 * ItemPage<Map<String, AttributeValue>> page = reader.read("SKU-1", 292, 20, Order.ASC);
 * }</pre>
 */
public final class PageReader<T> {
  /**
   * The largest page: a Query reads at most 1 MB, so no request can be asked for more items than this. The page
   * size times the fresh page count must not exceed it either.
   */
  public static final int MAX_PAGE_SIZE = 1_000_000;

  /** How many times a page is read, at most, when its group is republished under each read. */
  public static final int REPUBLISHED_ATTEMPTS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(PageReader.class);

  private final DynamoDbClient client;
  private final String table;
  private final String gsi;
  private final Index index;
  private final Function<Map<String, AttributeValue>, T> mapper;
  private final int freshPages;
  private final PageMetrics metrics;

  /** {@code gsi} is null for an index built on the table's own keys. */
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
   * Pages of a table's GSI as raw items.
   *
   * @param client the client that sends the Queries
   * @param table the table's name
   * @param gsi the global secondary index the index was built on
   * @param index the index of that GSI
   * @return a reader with no fresh pages and metrics of its own
   * @throws NullPointerException if any argument is null
   */
  public static PageReader<Map<String, AttributeValue>> of(
      DynamoDbClient client, String table, String gsi, Index index) {
    return new PageReader<>(client, table, Objects.requireNonNull(gsi, "gsi"), index, item -> item, 0,
        new PageMetrics());
  }

  /**
   * Pages of a table read on its own keys, as raw items: the index was built with the table's partition key as its
   * group key (no GSI).
   *
   * @param client the client that sends the Queries
   * @param table the table's name
   * @param index the index of that table
   * @return a reader with no fresh pages and metrics of its own
   * @throws NullPointerException if any argument is null
   */
  public static PageReader<Map<String, AttributeValue>> of(DynamoDbClient client, String table, Index index) {
    return new PageReader<>(client, table, null, index, item -> item, 0, new PageMetrics());
  }

  /**
   * Pages of an Enhanced Client index, items mapped with its table schema ({@code TableSchema.mapToItem}; enhanced
   * client extensions are not applied to them). The Query goes through {@code client}, which reports the consumed
   * capacity the enhanced API of this SDK version does not.
   *
   * @param client the client that sends the Queries
   * @param gsi the GSI the index was built on, as the Enhanced Client names it
   * @param index the index of that GSI
   * @return a reader with no fresh pages and metrics of its own
   * @throws NullPointerException if any argument is null
   */
  public static <T> PageReader<T> of(DynamoDbClient client, DynamoDbIndex<T> gsi, Index index) {
    Objects.requireNonNull(gsi, "gsi");
    return new PageReader<>(
        client, gsi.tableName(), gsi.indexName(), index, gsi.tableSchema()::mapToItem, 0, new PageMetrics());
  }

  /**
   * As {@link #of(DynamoDbClient, DynamoDbIndex, Index)}, for an index built on the table's own keys.
   *
   * @param client the client that sends the Queries
   * @param table the table, as the Enhanced Client names it
   * @param index the index of that table
   * @return a reader with no fresh pages and metrics of its own
   * @throws NullPointerException if any argument is null
   */
  public static <T> PageReader<T> of(DynamoDbClient client, DynamoDbTable<T> table, Index index) {
    Objects.requireNonNull(table, "table");
    return new PageReader<>(
        client, table.tableName(), null, index, table.tableSchema()::mapToItem, 0, new PageMetrics());
  }

  /**
   * Serves pages 1..{@code pages} straight from DynamoDB, so items written since the build show there: page p is
   * one read of the group's first {@code p * pageSize} items, of which the last {@code pageSize} are kept. Such a
   * page costs p times a page read from the index, and an item may show again on page {@code pages + 1}, which the
   * index still places as of its build. 0 (the default) turns this off.
   *
   * @return a reader like this one, with that many fresh pages
   * @throws IllegalArgumentException if {@code pages} is negative
   */
  public PageReader<T> withFreshPages(int pages) {
    if (pages < 0) {
      throw new IllegalArgumentException("fresh pages must be 0 or more, not " + pages);
    }
    return new PageReader<>(client, table, gsi, index, mapper, pages, metrics);
  }

  /**
   * Counts into the given metrics (shared with other readers, say) instead of this reader's own.
   *
   * @return a reader like this one, counting into {@code metrics}
   * @throws NullPointerException if {@code metrics} is null
   */
  public PageReader<T> withMetrics(PageMetrics metrics) {
    return new PageReader<>(client, table, gsi, index, mapper, freshPages, Objects.requireNonNull(metrics, "metrics"));
  }

  /** What this reader has done so far. */
  public PageMetrics metrics() {
    return metrics;
  }

  /**
   * {@link #read(KeyValue, long, int, Order)} for a group given as text (the string itself, a decimal number, or
   * base64 for binary group keys).
   *
   * @throws NullPointerException if {@code group} or {@code order} is null
   * @throws GroupNotFoundException when the text cannot be a group key of the index, or the build has no such group
   * @throws PageOutOfRangeException when the page is past the group's last page in the build
   * @throws IllegalArgumentException as {@link #read(KeyValue, long, int, Order)}
   * @throws IOException when the index cannot be read
   */
  public ItemPage<T> read(String group, long page, int pageSize, Order order) throws LookupException, IOException {
    Objects.requireNonNull(group, "group");
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
   * Reads a page. DynamoDB's own errors pass through as the SDK's exceptions.
   *
   * @param group the group key
   * @param page the page number, from 1
   * @param pageSize items a page, 1..{@link #MAX_PAGE_SIZE}
   * @param order the order the group is read in
   * @return the page's items, with what the index says about the group and what reading cost
   * @throws NullPointerException if {@code group} or {@code order} is null
   * @throws GroupNotFoundException when the build has no such group
   * @throws PageOutOfRangeException when the page is past the group's last page in the build
   * @throws IllegalArgumentException for a page below 1, a page size outside 1..{@link #MAX_PAGE_SIZE}, or a fresh
   *     page that would read more than {@link #MAX_PAGE_SIZE} items
   * @throws GroupRepublishedException when the store replaced the group under each of {@value #REPUBLISHED_ATTEMPTS}
   *     reads
   * @throws IOException when the index cannot be read
   */
  public ItemPage<T> read(KeyValue group, long page, int pageSize, Order order) throws LookupException, IOException {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(order, "order");
    checkRequest(page, pageSize);
    Cost cost = new Cost();
    for (int attempt = 1; ; attempt++) {
      try {
        return readOnce(group, page, pageSize, order, cost);
      } catch (GroupRepublishedException e) {
        if (attempt >= REPUBLISHED_ATTEMPTS) {
          throw e;
        }
        metrics.republished();
        LOG.debug("reading page {} of group {} again: {}", page, group, e.getMessage());
      }
    }
  }

  /**
   * Reads a page of the union of several groups of one build ("rating 3 or 5"; see {@link UnionPages} for its order):
   * the index places the page in each group, one Query per group with items on the page runs in parallel, and the
   * results are merged. A group the build does not hold counts as empty. Groups republished under the read, or
   * answered from two builds, are opened again, up to {@value #REPUBLISHED_ATTEMPTS} times in all. Fresh pages do not
   * apply to unions.
   *
   * @param groups the group keys, each once
   * @param page the page number, from 1
   * @param pageSize items a page, 1..{@link #MAX_PAGE_SIZE}
   * @param order the order the union is read in
   * @return the page's items in the union's order, with where each group's share starts and what reading cost
   * @throws NullPointerException if {@code groups}, a group or {@code order} is null
   * @throws PageOutOfRangeException when the page is past the union's last page in the build
   * @throws IllegalArgumentException for a page below 1, a page size outside 1..{@link #MAX_PAGE_SIZE}, no group, too
   *     many, or one given twice
   * @throws GroupRepublishedException when every attempt found a group republished or two builds
   * @throws IOException when the index cannot be read
   */
  public UnionPage<T> read(List<KeyValue> groups, long page, int pageSize, Order order)
      throws LookupException, IOException {
    Objects.requireNonNull(order, "order");
    if (page < 1) {
      throw new IllegalArgumentException("page must be 1 or more, not " + page);
    }
    if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "page size must be between 1 and " + MAX_PAGE_SIZE + ", not " + pageSize);
    }
    return readUnion(groups, union -> union.pageStart(page, pageSize, order));
  }

  /**
   * Reads the page of the union of {@code groups} that a cursor names ({@link UnionCursor#next}), as
   * {@link #read(List, long, int, Order)} reads a numbered page. The cursor is checked against the groups and the
   * build the union is read from, so a page is never read from a build that numbered it differently.
   *
   * @throws NullPointerException if an argument or a group is null
   * @throws CursorRefusedException when the cursor is malformed, not signed with {@code cursors}' secret, or made for
   *     other groups or another build
   * @throws IllegalArgumentException for no group, too many, or one given twice
   * @throws GroupRepublishedException when every attempt found a group republished or two builds
   * @throws IOException when the index cannot be read
   */
  public UnionPage<T> read(List<KeyValue> groups, String cursor, UnionCursor cursors)
      throws LookupException, IOException {
    Objects.requireNonNull(cursor, "cursor");
    Objects.requireNonNull(cursors, "cursors");
    return readUnion(groups, union -> {
      UnionCursor.Position p = cursors.decode(cursor, union.groups(), union.buildId());
      return union.pageStart(p.page(), p.pageSize(), p.order());
    });
  }

  /** Where a union's page starts: a numbered page, or the page a cursor names. */
  private interface UnionPlacement {
    UnionPageStart place(UnionPages union) throws LookupException, IOException;
  }

  private UnionPage<T> readUnion(List<KeyValue> groups, UnionPlacement placement)
      throws LookupException, IOException {
    for (int attempt = 1; ; attempt++) {
      try (UnionPages union = index.union(groups)) {
        UnionPageStart start = placement.place(union);
        UnionRead.Raw raw = UnionRead.read(union, start,
            groupAttribute -> new PageQuery(client, table, gsi, groupAttribute, index.sortAttribute()));
        metrics.queried(raw.requests(), raw.capacity());
        metrics.unionPage(raw.stale() != null);
        if (raw.stale() != null) {
          LOG.warn("a group of the union {} is stale in build {} of the index: {}", start.groups(),
              start.buildId(), raw.stale());
        }
        List<T> items = new ArrayList<>(raw.items().size());
        raw.items().forEach(item -> items.add(mapper.apply(item)));
        return new UnionPage<>(start, items, raw.stale() != null, raw.stale(), raw.requests(), raw.capacity());
      } catch (GroupRepublishedException e) {
        if (attempt >= REPUBLISHED_ATTEMPTS) {
          throw e;
        }
        metrics.republished();
        LOG.debug("reading a page of the union {} again: {}", groups, e.getMessage());
      }
    }
  }

  /** What the Queries of one page cost, over every attempt. */
  private static final class Cost {
    int requests;
    double readCapacity;
  }

  /** One attempt: the group as the index holds it now, one page start, the Query, the comparison. */
  private ItemPage<T> readOnce(KeyValue group, long page, int pageSize, Order order, Cost cost)
      throws LookupException, IOException {
    try (GroupPages pages = index.group(group)) {
      PageStart start = pages.pageStart(page, pageSize, order);
      boolean fresh = page <= freshPages;
      PageQuery query = new PageQuery(client, table, gsi, pages.groupAttribute(), pages.sortAttribute());
      PageQuery.Page read = query.fetch(fresh ? fromGroupStart(start) : start);
      cost.requests += read.requests();
      cost.readCapacity += read.consumedReadCapacity();
      metrics.queried(read.requests(), read.consumedReadCapacity());
      String stale = fresh ? null : difference(pages, start, read.items());
      List<T> items = new ArrayList<>(read.items().size());
      for (Map<String, AttributeValue> item : read.items()) {
        items.add(mapper.apply(item));
      }
      ItemPage<T> result =
          new ItemPage<>(group, page, pageSize, order, pages.count(), start.pages(), pages.buildId(), items, fresh,
              stale != null, stale, cost.requests, cost.readCapacity);
      metrics.page(result);
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
      if (e != null && !matches(e, item, sortAttribute)) {
        return "item " + (first + i + 1) + " of the group (" + start.order().label() + ") is "
            + describe(PageStart.attributeValues(e.key()), pages) + " in the build but "
            + describe(item, pages) + " in DynamoDB";
      }
    }
    if (items.size() < expected) {
      return "page " + start.page() + " (" + start.order().label() + ") holds " + expected
          + " items in the build but DynamoDB has only " + items.size();
    }
    return null;
  }

  static boolean matches(GroupPages.Expected e, Map<String, AttributeValue> item, String sortAttribute) {
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
