package io.pagemark.transforms;

import java.io.Serializable;

/** A group whose complete set this build renamed over the live one. */
record GroupPublished(
    byte[] group, byte[] stamp, String groupText, long members, long tieRuns, long tieRunsUnresolved)
    implements Serializable {
  private static final long serialVersionUID = 1L;
}
