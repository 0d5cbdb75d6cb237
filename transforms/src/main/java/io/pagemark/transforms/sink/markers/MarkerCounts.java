package io.pagemark.transforms.sink.markers;

import java.io.Serializable;

/**
 * What writing the markers of some groups did, summed over groups.
 *
 * @param groups groups written
 * @param entries their items
 * @param stamped markers written or rewritten
 * @param removed markers taken off
 * @param rereads groups read again because they changed since the scan
 * @param conflicts writes that still found their item changed after the last attempt
 */
public record MarkerCounts(long groups, long entries, long stamped, long removed, long rereads, long conflicts)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  static final MarkerCounts NONE = new MarkerCounts(0, 0, 0, 0, 0, 0);

  MarkerCounts plus(MarkerCounts o) {
    return new MarkerCounts(groups + o.groups, entries + o.entries, stamped + o.stamped, removed + o.removed,
        rereads + o.rereads, conflicts + o.conflicts);
  }

  /** One line for the end of a command's output. */
  public String summary() {
    return String.format("%,d groups, %,d items: %,d markers written, %,d taken off, %,d groups read again as they"
        + " changed since the scan, %,d conflicting writes left", groups, entries, stamped, removed, rereads,
        conflicts);
  }
}
