package io.pagemark.transforms.sink.file;

import java.io.Serializable;

/**
 * What writing one group file produced: its manifest line and the counts the build summary adds up.
 *
 * @param file the file's path relative to the build directory
 * @param manifestLine the group's line of {@code manifest.jsonl}
 */
record GroupSummary(String file, String manifestLine, long entries, long tieRuns, long unresolvedRuns)
    implements Serializable {
  private static final long serialVersionUID = 1L;
}
