package io.pagemark.transforms.sink.redis;

import io.pagemark.key.Json;
import java.io.Serializable;

/**
 * What a Redis load did, emitted once by {@link WriteRedisSortedSets} after the last group is published.
 *
 * @param address the Redis address, without credentials
 * @param groups groups published by this build
 * @param entries members loaded (one per index entry)
 * @param groupsRemoved groups of earlier builds that this build no longer has, removed
 * @param staleKeysRemoved temporary sets of finished or abandoned builds, removed
 */
public record RedisLoadSummary(
    String buildId,
    String address,
    String keyPrefix,
    long groups,
    long entries,
    long tieRuns,
    long tieRunsUnresolved,
    long groupsRemoved,
    long staleKeysRemoved)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** One line for the end of a command's output. */
  public String line() {
    return String.format(
        "published build %s to %s under key prefix %s: %,d entries in %,d groups; removed %,d groups the table no"
            + " longer has and %,d stale temporary sets",
        buildId, address, Json.quote(keyPrefix), entries, groups, groupsRemoved, staleKeysRemoved);
  }
}
