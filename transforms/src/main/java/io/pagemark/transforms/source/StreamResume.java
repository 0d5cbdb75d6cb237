package io.pagemark.transforms.source;

import io.pagemark.wal.ShardPosition;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a store's change stream picks up where it stopped: the positions it had durably applied when this run started
 * (records at or before them are dropped unread), and the shards' order to prove each new position against.
 *
 * @param shards the shards' records in Kinesis order
 * @param applied per shard id, the position applied before this run (empty for a fresh store, or when the user chose
 *     where to start)
 */
public record StreamResume(ShardSequence shards, Map<String, ShardPosition> applied) implements Serializable {
  private static final long serialVersionUID = 1L;

  public StreamResume {
    Objects.requireNonNull(shards, "shards");
    applied = new HashMap<>(applied); // serializable, unlike Map.copyOf's
  }

  /** Whether a record was applied before this run. */
  boolean applied(String shardId, String sequenceNumber) {
    ShardPosition p = applied.get(shardId);
    return p != null && p.covers(sequenceNumber);
  }
}
