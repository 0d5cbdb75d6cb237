package io.pagemark.transforms.source;

import io.pagemark.wal.ShardPosition;
import java.io.IOException;
import java.io.Serializable;

/**
 * Where a store keeps its change stream's resume positions, one per Kinesis shard (beside the WAL, in the Redis
 * index). A position moves forward only and is written after everything it covers is durable in that store.
 */
public interface ShardPositionStore extends Serializable {
  /** A writer with its own connections; the caller closes it. */
  Writer open() throws IOException;

  /** Writes positions. */
  interface Writer extends AutoCloseable {
    /** Moves the shard's position forward to {@code position} (never back); whether it moved. */
    boolean advance(String shardId, ShardPosition position) throws IOException;

    @Override
    void close();
  }
}
