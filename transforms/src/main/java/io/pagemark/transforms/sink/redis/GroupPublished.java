package io.pagemark.transforms.sink.redis;

import java.io.Serializable;
import java.util.Arrays;

/** A group whose complete set this build renamed over the live one. */
record GroupPublished(
    byte[] group, byte[] stamp, String groupText, long members, long tieRuns, long tieRunsUnresolved)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  // Arrays compare by content, so that Beam's coder checks see a decoded copy as equal to the original.
  @Override
  public boolean equals(Object o) {
    return o instanceof GroupPublished g
        && Arrays.equals(group, g.group)
        && Arrays.equals(stamp, g.stamp)
        && groupText.equals(g.groupText)
        && members == g.members
        && tieRuns == g.tieRuns
        && tieRunsUnresolved == g.tieRunsUnresolved;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(group);
  }

  @Override
  public String toString() {
    return "group " + groupText + ": " + members + " members";
  }
}
