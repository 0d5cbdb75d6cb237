package io.pagemark.transforms.sink.redis;

import java.io.Serializable;
import java.util.Arrays;

/**
 * One part of a group, loaded into the build's temporary set of the group.
 *
 * @param group the group key's canonical bytes
 * @param stamp the group's stamp for the groups hash (build id and stored group key)
 * @param groupText the group key as DynamoDB JSON, for messages
 * @param members members the part added
 */
record PartLoaded(
    byte[] group, byte[] stamp, String groupText, int part, int parts, long members, long tieRuns,
    long tieRunsUnresolved)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  // Arrays compare by content, so that Beam's coder checks see a decoded copy as equal to the original.
  @Override
  public boolean equals(Object o) {
    return o instanceof PartLoaded p
        && Arrays.equals(group, p.group)
        && Arrays.equals(stamp, p.stamp)
        && groupText.equals(p.groupText)
        && part == p.part
        && parts == p.parts
        && members == p.members
        && tieRuns == p.tieRuns
        && tieRunsUnresolved == p.tieRunsUnresolved;
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(group) + part;
  }

  @Override
  public String toString() {
    return "part " + (part + 1) + " of " + parts + " of group " + groupText + ": " + members + " members";
  }
}
