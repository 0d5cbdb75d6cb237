package io.pagemark.transforms.order;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * How a group is split into parts that each fit a worker: {@code parts - 1} boundaries in DynamoDB's order (as
 * {@code KeyValue.sortableBytes()}); an entry belongs to the part numbered by how many boundaries are at or below its
 * sort key. Boundaries are sort key values, so a run of equal sort keys is never split. A small group has no parts
 * of its own ({@code own} false): it is ordered in a part shared with other small groups ({@link AssignPartFn}).
 */
record GroupPlan(int parts, List<byte[]> boundaries, boolean own) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A small group: ordered in a shared part. The plan of every group the plans do not name. */
  static final GroupPlan SHARED = new GroupPlan(1, List.of(), false);

  /** A group of one part of its own. */
  static final GroupPlan ALONE = new GroupPlan(1, List.of(), true);

  GroupPlan {
    boundaries = List.copyOf(boundaries);
    if (parts != boundaries.size() + 1) {
      throw new IllegalArgumentException(parts + " parts need " + (parts - 1) + " boundaries");
    }
    if (parts > 1 && !own) {
      throw new IllegalArgumentException("a group of " + parts + " parts has parts of its own");
    }
  }

  /** Parts of its own at these boundaries. */
  static GroupPlan split(List<byte[]> boundaries) {
    return new GroupPlan(boundaries.size() + 1, boundaries, true);
  }

  /** The part of an entry with this sort key (its sortable bytes). */
  int partOf(byte[] sortKey) {
    return partOf(sortKey, 0, sortKey.length);
  }

  /** The part of an entry whose sort key's sortable bytes are {@code b[from..to)}. */
  int partOf(byte[] b, int from, int to) {
    int lo = 0;
    int hi = boundaries.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      byte[] boundary = boundaries.get(mid);
      if (Arrays.compareUnsigned(boundary, 0, boundary.length, b, from, to) <= 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
}
