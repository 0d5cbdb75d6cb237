package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The k-way selection behind a union's pages: for a rank r of the union's ascending order, how many items of each
 * group come before it, found by reading the groups' records by rank and never the union itself.
 *
 * <p>The union's ascending order ranks the item at rank i of group g (groups sorted by group key) by the triple
 * (sort key, g, i), so the items of one group keep their own order. Every group has a window [lo, hi] holding its
 * answer. Each round compares the middle items of the open windows: when the first r cannot reach the largest of them,
 * its group's window ends before it; otherwise, when they hold the smallest of them, its group's window starts after it.
 * Either way one window loses half its items, and only that window's new middle item is new, so a selection reads about
 * one record per halving: at most sum over groups of (log2(window) + 2) records. A record carries its run of equal sort
 * keys (tie position and run length), so one read answers the sort key of the whole run.
 *
 * <p>Records read are kept for the selection's life and counted once each ({@link #reads()}); {@link #records(int)}
 * serves the page start's key lookups from the same cache and count. Not thread-safe; one per page start.
 */
final class UnionSelection {
  private final List<RankedGroup> groups;
  private final long[] counts;
  private final long total;
  private final List<Map<Long, IndexRecord>> records = new ArrayList<>();
  /** Per group, the runs of equal sort keys seen: first rank to (end rank, sort key). */
  private final List<TreeMap<Long, Run>> runs = new ArrayList<>();
  private long reads;

  private record Run(long end, KeyValue sortKey) {}

  /**
   * {@code groups}' records sorted by group key in DynamoDB's order: for a store that changes groups in place, each a
   * {@link RankedGroup#snapshot} of one state, whose missing records end the selection with {@link Missing}.
   */
  UnionSelection(List<RankedGroup> groups) {
    this.groups = groups;
    this.counts = new long[groups.size()];
    long n = 0;
    for (int g = 0; g < counts.length; g++) {
      counts[g] = groups.get(g).count();
      n += counts[g];
      records.add(new HashMap<>());
      runs.add(new TreeMap<>());
    }
    this.total = n;
  }

  long total() {
    return total;
  }

  /** Records read from the store so far: one per positioned read, each distinct rank once. */
  long reads() {
    return reads;
  }

  /**
   * Per group, how many of its items are among the first {@code r} items of the union read in {@code order}: the
   * first that many items of the group's own walk in that order.
   */
  long[] before(long r, Order order) throws IOException {
    if (order == Order.ASC) {
      return ascendingBefore(r);
    }
    // Runs of one (sort key, group) stay together in both orders, so the first r of the descending union hold, per
    // group, as many items as the last r of the ascending union do.
    long[] asc = ascendingBefore(total - r);
    long[] desc = new long[asc.length];
    for (int g = 0; g < asc.length; g++) {
      desc[g] = counts[g] - asc[g];
    }
    return desc;
  }

  /** The last ascending selection: its rank and counts, which bound the next one (a page's end after its start). */
  private long lastRank = -1;
  private long[] last;

  private long[] ascendingBefore(long r) throws IOException {
    if (r < 0 || r > total) {
      throw new IndexOutOfBoundsException("rank " + r + " is outside 0.." + total);
    }
    int k = counts.length;
    long[] lo = new long[k];
    long[] hi = new long[k];
    for (int g = 0; g < k; g++) {
      lo[g] = Math.max(0, r - (total - counts[g]));
      hi[g] = Math.min(counts[g], r);
      if (last != null) {
        // d ranks further on, each group holds between 0 and d more of the first items (fewer when going back)
        long d = r - lastRank;
        lo[g] = Math.max(lo[g], d >= 0 ? last[g] : last[g] + d);
        hi[g] = Math.min(hi[g], d >= 0 ? last[g] + d : last[g]);
      }
    }
    long[] answer = select(r, lo, hi);
    lastRank = r;
    last = answer.clone();
    return answer;
  }

  /**
   * Narrows the windows until the first r items are decided. With {@code need} items still to place among the
   * windows' items and m_g the middle of each open window: the largest middle item follows at least H - 1 window items,
   * H being the sum of (m_g - lo_g + 1), so when need &lt;= H - 1 neither it nor what follows it in its group is among
   * the first r; the smallest middle item precedes at least sum(hi_g - m_g) - 1 window items, so when need &gt; H - K
   * (K open windows) it and what precedes it in its group are. One of the two always holds (K &gt;= 1); when both do,
   * the cut that drops more items is taken.
   */
  private long[] select(long r, long[] lo, long[] hi) throws IOException {
    int k = counts.length;
    long[] mid = new long[k];
    KeyValue[] key = new KeyValue[k];
    while (true) {
      long need = r;
      long width = 0;
      for (int g = 0; g < k; g++) {
        need -= lo[g];
        width += hi[g] - lo[g];
      }
      if (need == 0) {
        return lo;
      }
      if (need == width) {
        return hi;
      }
      long h = 0;
      int open = 0;
      int top = -1;
      int bottom = -1;
      for (int g = 0; g < k; g++) {
        if (hi[g] == lo[g]) {
          continue;
        }
        mid[g] = lo[g] + (hi[g] - lo[g]) / 2;
        key[g] = sortKey(g, mid[g]);
        h += mid[g] - lo[g] + 1;
        open++;
        // groups are visited in the union's order of group keys, so an equal sort key of a later group sorts later
        if (top < 0 || key[g].compareTo(key[top]) >= 0) {
          top = g;
        }
        if (bottom < 0 || key[g].compareTo(key[bottom]) < 0) {
          bottom = g;
        }
      }
      boolean cutTop = need <= h - 1;
      boolean cutBottom = need > h - open;
      if (cutTop && (!cutBottom || hi[top] - mid[top] >= mid[bottom] + 1 - lo[bottom])) {
        hi[top] = mid[top];
      } else {
        lo[bottom] = mid[bottom] + 1;
      }
    }
  }

  private KeyValue sortKey(int g, long rank) throws IOException {
    Map.Entry<Long, Run> run = runs.get(g).floorEntry(rank);
    if (run != null && rank < run.getValue().end()) {
      return run.getValue().sortKey();
    }
    return record(g, rank).sortKey();
  }

  /** The record at an ascending rank of group {@code g}, read once and counted. */
  IndexRecord record(int g, long rank) throws IOException {
    IndexRecord r = records.get(g).get(rank);
    if (r == null) {
      try {
        r = groups.get(g).record(rank);
      } catch (RankWindow.Outside outside) {
        throw new Missing(g, outside.rank);
      }
      reads++;
      records.get(g).put(rank, r);
      long start = rank - r.tiePosition();
      runs.get(g).put(start, new Run(start + r.runLength(), r.sortKey()));
    }
    return r;
  }

  /** Group {@code g}'s records as a page start reads them: through this selection's cache and count. */
  RankedGroup records(int g) {
    RankedGroup of = groups.get(g);
    return new RankedGroup() {
      @Override
      public KeyValue group() {
        return of.group();
      }

      @Override
      public String groupAttribute() {
        return of.groupAttribute();
      }

      @Override
      public List<io.pagemark.format.KeyAttribute> attributes() {
        return of.attributes();
      }

      @Override
      public String buildId() {
        return of.buildId();
      }

      @Override
      public long count() {
        return of.count();
      }

      @Override
      public IndexRecord record(long rank) throws IOException {
        return UnionSelection.this.record(g, rank);
      }

      @Override
      public void close() {
        // the union closes its groups
      }
    };
  }

  /** The snapshot of group {@code g} lacks the record at {@code rank}: read a snapshot that holds it and start over. */
  static final class Missing extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int group;
    final long rank;

    Missing(int group, long rank) {
      super("group " + group + " rank " + rank + " is not in the snapshot", null, false, false);
      this.group = group;
      this.rank = rank;
    }
  }
}
