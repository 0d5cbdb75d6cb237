package io.pagemark.transforms.sink.jdbc;

import io.pagemark.transforms.order.OrderedPart;
import java.io.Serializable;
import java.util.Arrays;

/**
 * What the build needs to know of one part before any of its entries can be ranked: its size (the parts before it
 * decide where it starts) and the runs of equal sort keys that start in it.
 *
 * @param groupValue the group key as stored
 */
record PartSize(byte[] groupValue, int part, int parts, long entries, long tieRuns, long tieRunsUnresolved)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  static PartSize of(OrderedPart p) {
    OrderedPart.TieRuns ties = p.tieRuns();
    return new PartSize(p.group().bytes(), p.part(), p.parts(), p.records().size(), ties.runs(), ties.unresolved());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartSize s && Arrays.equals(groupValue, s.groupValue) && part == s.part && parts == s.parts
        && entries == s.entries && tieRuns == s.tieRuns && tieRunsUnresolved == s.tieRunsUnresolved;
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(groupValue) + part;
  }
}
