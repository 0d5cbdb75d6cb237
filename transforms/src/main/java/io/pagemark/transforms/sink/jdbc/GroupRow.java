package io.pagemark.transforms.sink.jdbc;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * One group of the build, once every part of it was counted: its row in {@code groups_BUILD}, and where each of its
 * parts starts.
 *
 * @param groupKey the group key's canonical bytes
 * @param groupValue the group key as stored (UTF-8 text for S and N, raw bytes for B)
 * @param partStarts the rank of each part's first entry, by part number
 */
record GroupRow(byte[] groupKey, byte[] groupValue, long entries, long tieRuns, long tieRunsUnresolved,
    List<Long> partStarts) implements Serializable {
  private static final long serialVersionUID = 1L;

  GroupRow {
    partStarts = List.copyOf(partStarts);
  }

  // Arrays compare by content, so that Beam's coder checks see a decoded copy as equal to the original.
  @Override
  public boolean equals(Object o) {
    return o instanceof GroupRow g && Arrays.equals(groupKey, g.groupKey) && Arrays.equals(groupValue, g.groupValue)
        && entries == g.entries && tieRuns == g.tieRuns && tieRunsUnresolved == g.tieRunsUnresolved
        && partStarts.equals(g.partStarts);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(groupKey);
  }
}
