package io.pagemark.transforms.source;

import io.pagemark.wal.ShardPosition;
import java.io.IOException;
import java.io.Serializable;
import java.util.List;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The records of each shard in the order Kinesis holds them, as far as the tracker needs them: it proves that no
 * record lies between a shard's position and the records it is about to cover. Implementations are serializable
 * configurations; {@link #open} makes the clients on a worker.
 */
public interface ShardSequence extends Serializable {
  /** A reader with its own clients; the caller closes it. */
  Reader open();

  /** Reads one shard's records in order. */
  interface Reader extends AutoCloseable {
    /**
     * Up to {@code limit} records of the shard in order: the first ones after {@code after}, or, when it is null,
     * the first ones at or after the point this run of the stream started reading from. Empty when there are none
     * yet (or the shard ended).
     */
    List<ShardPosition> next(String shardId, @Nullable ShardPosition after, int limit) throws IOException;

    @Override
    void close();
  }
}
