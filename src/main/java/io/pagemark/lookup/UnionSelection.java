package io.pagemark.lookup;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The k-way selection behind a union's pages: for a rank r of the union's ascending order, how many items of each
 * group come before it, found by reading the groups' sort keys by rank and never the union itself.
 *
 * <p>The union's ascending order ranks the item at rank i of group g (groups sorted by group key) by the triple
 * (sort key, g, i), so the items of one group keep their own order. The selection narrows a window [lo, hi] holding
 * the answer for every group: it takes the middle item of the widest window, counts the items of every group below
 * it (a binary search on the sort key inside that group's window), and moves every window's lower end up when that
 * item is among the first r, its upper end down when it is not. Sort keys read are cached for the selection's life, so the binary searches of
 * successive pivots, which converge, share their reads. Not thread-safe; one per page start.
 */
final class UnionSelection {
  private final List<GroupPages> groups;
  private final long[] counts;
  private final long total;
  private final List<Map<Long, KeyValue>> cache;
  private long reads;

  /** {@code groups} sorted by group key in DynamoDB's order. */
  UnionSelection(List<GroupPages> groups) {
    this.groups = groups;
    this.counts = new long[groups.size()];
    long n = 0;
    for (int g = 0; g < counts.length; g++) {
      counts[g] = groups.get(g).count();
      n += counts[g];
    }
    this.total = n;
    this.cache = new java.util.ArrayList<>();
    for (int g = 0; g < counts.length; g++) {
      cache.add(new HashMap<>());
    }
  }

  long total() {
    return total;
  }

  /** Sort keys read from the store so far (each distinct rank once). */
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

  private long[] select(long r, long[] lo, long[] hi) throws IOException {
    int k = counts.length;
    long[] below = new long[k];
    while (true) {
      int widest = -1;
      for (int g = 0; g < k; g++) {
        if (hi[g] > lo[g] && (widest < 0 || hi[g] - lo[g] > hi[widest] - lo[widest])) {
          widest = g;
        }
      }
      if (widest < 0) {
        return lo;
      }
      long m = gridPoint(widest, lo[widest], hi[widest]);
      KeyValue pivot = sortKey(widest, m);
      long rank = 0;
      for (int h = 0; h < k; h++) {
        below[h] = h == widest ? m : countBelow(h, pivot, h < widest, lo[h], hi[h]);
        rank += below[h];
      }
      if (rank < r) {
        lo[widest] = m + 1;
        for (int h = 0; h < k; h++) {
          if (h != widest) {
            lo[h] = Math.max(lo[h], below[h]);
          }
        }
      } else {
        hi[widest] = m;
        for (int h = 0; h < k; h++) {
          if (h != widest) {
            hi[h] = Math.min(hi[h], below[h]);
          }
        }
      }
    }
  }

  /**
   * Items of group {@code h} before a pivot of sort key {@code s} from another group (those with a smaller sort key,
   * and those with an equal one when group {@code h} sorts before the pivot's group: {@code ties}), clamped to the
   * group's window {@code [lo, hi]}. The clamped count decides as the exact one would: when the pivot is among the
   * first r, every exact count is at most its group's answer, hence at most hi, and raising the others to lo keeps the
   * sum below r; when it is not, every exact count is at least the answer, hence at least lo, and lowering the others
   * to hi keeps the sum at r or more. So a search only ever reads inside the windows, which shrink every round.
   */
  private long countBelow(int h, KeyValue s, boolean ties, long lo, long hi) throws IOException {
    // A search over the whole group whose probes outside the window are decided without a read: the probes fall on
    // the same ranks for every pivot, so the cache serves the shared part of successive searches.
    long a = 0;
    long b = counts[h];
    while (a < b) {
      long mid = a + (b - a) / 2;
      boolean before;
      if (mid < lo) {
        before = true;
      } else if (mid >= hi) {
        before = false;
      } else {
        int c = sortKey(h, mid).compareTo(s);
        before = c < 0 || (c == 0 && ties);
      }
      if (before) {
        a = mid + 1;
      } else {
        b = mid;
      }
    }
    return a;
  }

  /**
   * The pivot of a window: the first probe of a binary search over the whole group that falls inside it. It splits
   * the window as a binary search does (the window then lies in half the range it did), and it is a rank the counting
   * searches of that group probe too, so its read is often cached already.
   */
  private long gridPoint(int g, long lo, long hi) {
    long a = 0;
    long b = counts[g];
    while (true) {
      long mid = a + (b - a) / 2;
      if (mid < lo) {
        a = mid + 1;
      } else if (mid >= hi) {
        b = mid;
      } else {
        return mid;
      }
    }
  }

  private KeyValue sortKey(int g, long rank) throws IOException {
    KeyValue v = cache.get(g).get(rank);
    if (v == null) {
      v = groups.get(g).sortKeyAt(rank);
      cache.get(g).put(rank, v);
      reads++;
    }
    return v;
  }
}
