package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;

/**
 * Positions of entries in a group's ranked records, in both of DynamoDB's orders: where a descending read returns an
 * entry, and which entry holds given key values. A run of equal sort keys whose order the index does not know is read
 * as the ascending order reversed, as a file index's readers read it.
 */
final class RankedReads {
  private RankedReads() {}

  /** The ascending rank of the entry a descending read returns at {@code position}. */
  static long ascendingAt(RankedGroup g, long position) throws IOException {
    long n = g.count();
    long p = n - 1 - position;
    IndexRecord r = g.record(p);
    if (r.runLength() == 1 || !r.runOrderKnown()) {
      return p;
    }
    long runStart = p - r.tiePosition();
    long offset = position - (n - (runStart + r.runLength()));
    IndexRecord slot = offset == r.tiePosition() ? r : g.record(runStart + offset);
    return runStart + slot.descendingSlot();
  }

  /** Where a read in {@code order} returns the entry with these stored key values, or -1. */
  static long positionOf(RankedGroup g, List<KeyValue> keys, Order order) throws IOException {
    long lo = 0;
    long hi = g.count();
    while (lo < hi) { // the first rank whose sort key is at or above the wanted one
      long mid = (lo + hi) >>> 1;
      if (g.record(mid).sortKey().compareTo(keys.get(0)) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == g.count() || !g.record(lo).sortKey().equals(keys.get(0))) {
      return -1;
    }
    IndexRecord first = g.record(lo);
    long runEnd = lo + first.runLength();
    for (long rank = lo; rank < runEnd; rank++) {
      IndexRecord r = rank == lo ? first : g.record(rank);
      if (r.keys().equals(keys)) {
        return order == Order.ASC ? rank : descendingOf(g, lo, r, rank);
      }
    }
    return -1;
  }

  private static long descendingOf(RankedGroup g, long runStart, IndexRecord r, long rank) throws IOException {
    long n = g.count();
    if (r.runLength() == 1 || !r.runOrderKnown()) {
      return n - 1 - rank;
    }
    long runEnd = runStart + r.runLength();
    for (int k = 0; k < r.runLength(); k++) {
      if (g.record(runStart + k).descendingSlot() == r.tiePosition()) {
        return (n - runEnd) + k;
      }
    }
    throw new IOException("no descending slot of the run at rank " + runStart + " of group " + g.group()
        + " names its position " + r.tiePosition() + ": the group is damaged");
  }
}
