package io.pagemark.transforms.sink.file;

import io.pagemark.transforms.source.ShardPositionStore;
import io.pagemark.wal.ShardPosition;
import io.pagemark.wal.Wal;
import java.io.IOException;
import java.nio.file.Path;

/** The shard positions beside a WAL ({@code wal/POSITIONS}, see {@link Wal#advanceShardPosition}). */
record WalPositionStore(String root) implements ShardPositionStore {
  private static final long serialVersionUID = 1L;

  @Override
  public Writer open() {
    Wal wal = new Wal(Path.of(root));
    return new Writer() {
      @Override
      public boolean advance(String shardId, ShardPosition position) throws IOException {
        return wal.advanceShardPosition(shardId, position);
      }

      @Override
      public void close() {}
    };
  }
}
