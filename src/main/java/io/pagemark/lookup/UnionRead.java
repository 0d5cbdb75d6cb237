package io.pagemark.lookup;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads a union's page for {@link PageReader}: the page start, one Query per group with items on the page (sent
 * together, from a shared pool of daemon threads, since a page waits for its slowest group), each group's items
 * compared with the keys the build holds for them, and a merge in the union's order.
 */
final class UnionRead {
  private static final ExecutorService QUERIES = Executors.newCachedThreadPool(new ThreadFactory() {
    private final AtomicInteger n = new AtomicInteger();

    @Override
    public Thread newThread(Runnable r) {
      Thread t = new Thread(r, "pagemark-union-query-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    }
  });

  private UnionRead() {}

  /** One group's items on the page, in the page's order. */
  private record Share(int group, List<Map<String, AttributeValue>> items, int requests, double capacity) {}

  /** The page's raw items merged, with its start, its cost and the first difference from the build (or null). */
  record Raw(UnionPageStart start, List<Map<String, AttributeValue>> items, String stale, int requests,
      double capacity) {}

  static Raw read(UnionPages union, UnionPageStart start, Function<String, PageQuery> queries) throws IOException {
    List<GroupPages> groups = union.groupPages();
    List<CompletableFuture<Share>> pending = new ArrayList<>();
    for (int g = 0; g < groups.size(); g++) {
      UnionPageStart.GroupStart s = start.starts().get(g);
      if (s.take() == 0) {
        continue;
      }
      GroupPages pages = groups.get(g);
      int index = g;
      PageStart one = new PageStart(s.group(), 1, (int) s.take(), start.order(), pages.count(), 1,
          s.exclusiveStartKey(), s.skip());
      pending.add(CompletableFuture.supplyAsync(() -> {
        PageQuery.Page p = queries.apply(pages.groupAttribute()).fetch(one);
        return new Share(index, p.items(), p.requests(), p.consumedReadCapacity());
      }, QUERIES));
    }
    List<Share> shares = new ArrayList<>();
    for (CompletableFuture<Share> f : pending) {
      try {
        shares.add(f.join());
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        throw e;
      }
    }
    int requests = 0;
    double capacity = 0;
    String stale = null;
    for (Share s : shares) {
      requests += s.requests();
      capacity += s.capacity();
      if (stale == null) {
        stale = difference(groups.get(s.group()), start.starts().get(s.group()), start.order(), s.items());
      }
    }
    return new Raw(start, merge(groups, shares, start.order()), stale, requests, capacity);
  }

  /** The next item of a share in the merge: its sort key, and its group's place in DynamoDB's group key order. */
  private record Head(int share, int next, KeyValue sortKey, int group) {}

  /**
   * Merges the groups' shares by sort key, equal sort keys by group key (both reversed for a descending page); each
   * share keeps its own order, which is DynamoDB's.
   */
  private static List<Map<String, AttributeValue>> merge(List<GroupPages> groups, List<Share> shares, Order order) {
    if (shares.isEmpty()) {
      return List.of();
    }
    String sortAttribute = groups.get(0).sortAttribute();
    KeyType sortType = groups.get(0).sortType();
    Comparator<Head> c = Comparator.comparing(Head::sortKey, KeyValue.ORDER).thenComparingInt(Head::group);
    PriorityQueue<Head> heads = new PriorityQueue<>(order == Order.ASC ? c : c.reversed());
    List<Map<String, AttributeValue>> out = new ArrayList<>();
    for (int i = 0; i < shares.size(); i++) {
      if (!shares.get(i).items().isEmpty()) {
        heads.add(head(shares.get(i), i, 0, sortAttribute, sortType));
      }
    }
    while (!heads.isEmpty()) {
      Head h = heads.poll();
      Share s = shares.get(h.share());
      out.add(s.items().get(h.next()));
      if (h.next() + 1 < s.items().size()) {
        heads.add(head(s, h.share(), h.next() + 1, sortAttribute, sortType));
      }
    }
    return out;
  }

  /** A GSI holds only items whose sort key has the GSI's type, so reading it cannot fail for a GSI's item. */
  private static Head head(Share s, int share, int next, String sortAttribute, KeyType type) {
    Map<String, AttributeValue> item = s.items().get(next);
    return new Head(share, next, ItemKeys.keyValue(sortAttribute, type, item.get(sortAttribute)), s.group());
  }

  /** As {@link PageReader}'s check of a one-group page, for one group's share of a union's page. */
  private static String difference(GroupPages pages, UnionPageStart.GroupStart s, Order order,
      List<Map<String, AttributeValue>> items) throws IOException {
    String sortAttribute = pages.sortAttribute();
    for (int i = 0; i < items.size(); i++) {
      GroupPages.Expected e = pages.expectedAt(s.before() + i, order);
      if (!PageReader.matches(e, items.get(i), sortAttribute)) {
        return "item " + (s.before() + i + 1) + " of group " + s.group() + " (" + order.label() + ") is "
            + ItemKeys.describe(PageStart.attributeValues(e.key()), pages.keyAttributes()) + " in the build but "
            + ItemKeys.describe(items.get(i), pages.keyAttributes()) + " in DynamoDB";
      }
    }
    if (items.size() < s.take()) {
      return "group " + s.group() + " holds " + s.take() + " items for the page in the build but DynamoDB returned "
          + items.size();
    }
    return null;
  }
}
