package io.pagemark.server.resp;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Order;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A group of an index of any store, read through the lookup library's {@link GroupPages}: what the server serves for
 * an index that is not a directory of files (page markers inside DynamoDB, say). Members are read in blocks of the
 * announced range, in the order the walk goes, and kept until the next block; a single member costs one read of the
 * store. Used by one event loop's thread only.
 */
final class PagesGroupView implements GroupView {
  /** Entries one read asks the store for when a range is announced. */
  static final int BLOCK = 256;

  private final GroupPages pages;
  private final Members members;
  private long rangeLo = -1;
  private long rangeHi = -2;
  private boolean downwards;
  /** The last block read: members by ascending rank, and for a descending block the ranks by position. */
  private final Map<Long, byte[]> byRank = new HashMap<>();
  private final Map<Long, Long> rankAt = new HashMap<>();

  PagesGroupView(GroupPages pages) {
    this.pages = pages;
    this.members = new Members(pages.groupAttribute(), pages.group(), pages.attributes());
  }

  @Override
  public KeyValue group() {
    return pages.group();
  }

  @Override
  public long count() {
    return pages.count();
  }

  @Override
  public Members members() {
    return members;
  }

  @Override
  public void range(long lo, long hi, boolean downwards) {
    this.rangeLo = Math.max(0, lo);
    this.rangeHi = Math.min(count() - 1, hi);
    this.downwards = downwards;
  }

  @Override
  public void endRange() {
    rangeLo = -1;
    rangeHi = -2;
  }

  @Override
  public int member(long rank, Scratch out) throws IOException {
    byte[] m = byRank.get(rank);
    if (m == null) {
      long from = rank;
      int n = 1;
      if (rangeLo <= rank && rank <= rangeHi) {
        from = downwards ? Math.max(rangeLo, rank - BLOCK + 1) : rank;
        n = (int) (downwards ? rank - from + 1 : Math.min(BLOCK, rangeHi - rank + 1));
      }
      keep(pages.entries(from, n, Order.ASC), false, from);
      m = byRank.get(rank);
      if (m == null) {
        throw new IOException("group " + group() + " has no entry at rank " + rank + " any more; it changed while"
            + " it was read, retry");
      }
    }
    out.reset();
    out.append(m, 0, m.length);
    return m.length;
  }

  @Override
  public long ascendingAt(long position) throws IOException {
    Long rank = rankAt.get(position);
    if (rank == null) {
      int n = 1;
      long n1 = count() - 1;
      // a descending walk announces the ascending ranks it covers: positions n1 - rangeHi to n1 - rangeLo
      if (rangeLo >= 0 && n1 - rangeHi <= position && position <= n1 - rangeLo) {
        n = (int) Math.min(BLOCK, n1 - rangeLo - position + 1);
      }
      keep(pages.entries(position, n, Order.DESC), true, position);
      rank = rankAt.get(position);
      if (rank == null) {
        throw new IOException("group " + group() + " has no entry at descending position " + position
            + " any more; it changed while it was read, retry");
      }
    }
    return rank;
  }

  private void keep(List<GroupPages.Entry> entries, boolean descending, long from) {
    byRank.clear();
    rankAt.clear();
    long position = from;
    for (GroupPages.Entry e : entries) {
      byRank.put(e.rank(), members.encode(stored(e.key())));
      if (descending) {
        rankAt.put(position++, e.rank());
      }
    }
  }

  private List<KeyValue> stored(Map<String, KeyValue> key) {
    List<KeyValue> values = new ArrayList<>(members.attributes().size());
    members.attributes().forEach(a -> values.add(key.get(a.name())));
    return values;
  }

  @Override
  public long descendingOf(long rank) throws IOException {
    List<GroupPages.Entry> e = pages.entries(rank, 1, Order.ASC);
    return e.isEmpty() ? -1 : pages.positionOf(stored(e.get(0).key()), Order.DESC);
  }

  @Override
  public long rankOf(List<KeyValue> keys) throws IOException {
    return pages.positionOf(keys, Order.ASC);
  }

  @Override
  public GroupPages pages() {
    return pages;
  }

  @Override
  public void close() throws IOException {
    pages.close();
  }
}
