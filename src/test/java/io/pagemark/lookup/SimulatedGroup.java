package io.pagemark.lookup;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntPredicate;

/**
 * One group of a simulated DynamoDB GSI (group key {@code PK2}, sort key {@code SK2}, table key {@code PK}), as a
 * Query sees it: items in sort-key order, where each run of equal sort keys has its own arbitrary "internal" ascending
 * order and a descending order that differs from it and is not simply its reverse (as DynamoDB Local does). A Query
 * returns the items strictly after its exclusive start key in the order it reads; the reference walk chains Queries
 * through the last key of each page, as DynamoDB's own cursor does.
 */
public final class SimulatedGroup {
  public static final String GROUP_ATTRIBUTE = "PK2";
  public static final List<KeyAttribute> ATTRIBUTES = List.of(
      new KeyAttribute("SK2", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));

  /** An item: its sort key and its table key. */
  public record Item(KeyValue sortKey, KeyValue pk) {
    List<KeyValue> keys() {
      return List.of(sortKey, pk);
    }
  }

  private final KeyValue group;
  /** Runs in ascending sort-key order, each in DynamoDB's internal ascending order. */
  private final List<List<Item>> runsAscending;
  /** The same runs (same index), each in DynamoDB's internal descending order. */
  private final List<List<Item>> runsDescending;

  private SimulatedGroup(KeyValue group, List<List<Item>> asc, List<List<Item>> desc) {
    this.group = group;
    this.runsAscending = asc;
    this.runsDescending = desc;
  }

  /** A random group of 1 to {@code maxItems} items: mostly unique sort keys, some runs, now and then a long run. */
  public static SimulatedGroup random(Random rnd, KeyValue group, int maxItems) {
    int n = 1 + rnd.nextInt(maxItems);
    List<List<Item>> asc = new ArrayList<>();
    List<List<Item>> desc = new ArrayList<>();
    int made = 0;
    int sortKey = rnd.nextInt(5) - 2;
    while (made < n) {
      int size;
      switch (rnd.nextInt(6)) {
        case 0:
          size = 2;
          break;
        case 1:
          size = 3 + rnd.nextInt(4);
          break;
        case 2:
          size = rnd.nextInt(8) == 0 ? 8 + rnd.nextInt(20) : 1;
          break;
        default:
          size = 1;
      }
      size = Math.min(size, n - made);
      sortKey += 1 + rnd.nextInt(3);
      List<Item> run = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        // equal sort keys written differently ("5", "5.0", "50E-1") are one run, as DynamoDB compares numbers
        String text = rnd.nextInt(4) == 0 ? sortKey + ".0" : rnd.nextInt(8) == 0 ? sortKey + "0E-1" : "" + sortKey;
        run.add(new Item(KeyValue.ofNumber(text), KeyValue.ofString("item-" + rnd.nextInt(1_000_000) + "-" + made)));
        made++;
      }
      Collections.shuffle(run, rnd); // the internal ascending order: unrelated to the keys
      List<Item> down = new ArrayList<>(run);
      if (size == 2) {
        // not reversed: for two items that leaves the ascending order itself
      } else if (size > 2) {
        List<Item> reversed = new ArrayList<>(run);
        Collections.reverse(reversed);
        do {
          Collections.shuffle(down, rnd);
        } while (down.equals(run) || down.equals(reversed));
      }
      asc.add(run);
      desc.add(down);
    }
    return new SimulatedGroup(group, asc, desc);
  }

  public KeyValue group() {
    return group;
  }

  public int size() {
    return runsAscending.stream().mapToInt(List::size).sum();
  }

  public int runs() {
    return runsAscending.size();
  }

  /** Every item in the order a Query reads the group. */
  public List<Item> readOrder(Order order) {
    List<Item> all = new ArrayList<>();
    if (order == Order.ASC) {
      runsAscending.forEach(all::addAll);
    } else {
      for (int r = runsDescending.size() - 1; r >= 0; r--) {
        all.addAll(runsDescending.get(r));
      }
    }
    return all;
  }

  /** A Query: the items strictly after the exclusive start key (null: from the start), in the given order. */
  public List<Item> query(Map<String, KeyValue> exclusiveStartKey, Order order) {
    List<Item> all = readOrder(order);
    if (exclusiveStartKey == null) {
      return all;
    }
    if (!group.equals(exclusiveStartKey.get(GROUP_ATTRIBUTE)) || exclusiveStartKey.size() != 3) {
      throw new AssertionError("exclusive start key " + exclusiveStartKey + " is not a key of group " + group);
    }
    for (int i = 0; i < all.size(); i++) {
      Item it = all.get(i);
      if (it.sortKey.equals(exclusiveStartKey.get("SK2")) && it.pk.equals(exclusiveStartKey.get("PK"))) {
        return all.subList(i + 1, all.size());
      }
    }
    throw new AssertionError("exclusive start key " + exclusiveStartKey + " names no item of group " + group);
  }

  /** The reference: page after page, each Query starting from the last item of the page before. */
  public List<List<Item>> walk(int pageSize, Order order) {
    List<List<Item>> pages = new ArrayList<>();
    Map<String, KeyValue> from = null;
    while (true) {
      List<Item> rest = query(from, order);
      if (rest.isEmpty()) {
        return pages;
      }
      List<Item> page = List.copyOf(rest.subList(0, Math.min(pageSize, rest.size())));
      pages.add(page);
      from = keyOf(page.get(page.size() - 1));
    }
  }

  public Map<String, KeyValue> keyOf(Item it) {
    Map<String, KeyValue> key = new LinkedHashMap<>();
    key.put(GROUP_ATTRIBUTE, group);
    key.put("SK2", it.sortKey);
    key.put("PK", it.pk);
    return key;
  }

  /** The group's entries in the index's deterministic order ({@link IndexEntry#ORDER}), as backfill sorts them. */
  public List<IndexEntry> entries() {
    List<IndexEntry> entries = new ArrayList<>();
    runsAscending.forEach(run -> run.forEach(it -> entries.add(new IndexEntry(group, it.keys()))));
    entries.sort(IndexEntry.ORDER);
    return entries;
  }

  /**
   * DynamoDB's reading orders of the run of equal sort keys that {@code run} (entries in the index's order) holds:
   * {@code [0]} ascending, {@code [1]} descending, as positions in {@code run}; what a tie order learns by querying.
   */
  public int[][] tieOrders(List<IndexEntry> run) {
    for (int r = 0; r < runsAscending.size(); r++) {
      if (runsAscending.get(r).get(0).sortKey.equals(run.get(0).sortKey())) {
        return new int[][] {positions(runsAscending.get(r), run), positions(runsDescending.get(r), run)};
      }
    }
    throw new AssertionError("no run with sort key " + run.get(0).sortKey());
  }

  private static int[] positions(List<Item> order, List<IndexEntry> run) {
    int[] p = new int[order.size()];
    for (int k = 0; k < order.size(); k++) {
      p[k] = -1;
      for (int i = 0; i < run.size(); i++) {
        if (run.get(i).keys().get(1).equals(order.get(k).pk)) {
          p[k] = i;
        }
      }
      if (p[k] < 0) {
        throw new AssertionError(order.get(k) + " is not in the run");
      }
    }
    return p;
  }

  /**
   * The group's records built as backfill builds them: a run whose order is known ({@code known.test(run index)})
   * is stored in DynamoDB's ascending order with its descending slots; any other run keeps the index's fallback
   * order (by table key) and is flagged unknown.
   */
  public List<IndexRecord> records(IntPredicate known) {
    List<IndexRecord> records = new ArrayList<>();
    for (int r = 0; r < runsAscending.size(); r++) {
      List<Item> asc = runsAscending.get(r);
      int n = asc.size();
      if (n == 1) {
        records.add(IndexRecord.unique(asc.get(0).keys()));
      } else if (known.test(r)) {
        List<Item> desc = runsDescending.get(r);
        for (int k = 0; k < n; k++) {
          records.add(new IndexRecord(k, n, true, asc.indexOf(desc.get(k)), asc.get(k).keys()));
        }
      } else {
        List<Item> fallback = new ArrayList<>(asc);
        fallback.sort((a, b) -> Arrays.compareUnsigned(a.pk.sortableBytes(), b.pk.sortableBytes()));
        for (int k = 0; k < n; k++) {
          records.add(new IndexRecord(k, n, false, n - 1 - k, fallback.get(k).keys()));
        }
      }
    }
    return records;
  }
}
