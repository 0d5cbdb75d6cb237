package io.pagemark.format.s3;

import io.pagemark.format.RecordSource;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A group file in S3, read with ranged GETs: opening it reads its first {@value #PREFIX_BYTES} bytes and its length in
 * one GET (the header, and the records of a small group, come from that); every other read is one GET of exactly the
 * bytes asked for. Thread-safe.
 */
final class S3RangeSource implements RecordSource {
  /** Enough for the header of any group whose key and attribute names are under about 3.9 KiB together. */
  static final int PREFIX_BYTES = 4096;

  private final S3IndexStore store;
  private final String relative;
  private final long size;
  private final byte[] prefix;

  private S3RangeSource(S3IndexStore store, String relative, long size, byte[] prefix) {
    this.store = store;
    this.relative = relative;
    this.size = size;
    this.prefix = prefix;
  }

  static S3RangeSource open(S3IndexStore store, String relative) throws IOException {
    S3IndexStore.Range first = store.readRange(relative, 0, PREFIX_BYTES);
    return new S3RangeSource(store, relative, first.objectSize(), first.bytes());
  }

  @Override
  public String name() {
    return store.location().uri(relative);
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public void readFully(long position, ByteBuffer into) throws IOException {
    int n = into.remaining();
    if (position < 0 || position + n > size) {
      throw new EOFException(name() + " has " + size + " bytes; cannot read " + n + " at " + position);
    }
    if (position + n <= prefix.length) {
      into.put(prefix, (int) position, n);
      return;
    }
    S3IndexStore.Range r = store.readRange(relative, position, n);
    if (r.bytes().length != n) {
      throw new EOFException(name() + ": asked for " + n + " bytes at " + position + ", S3 returned "
          + r.bytes().length + " (was the object replaced?)");
    }
    into.put(r.bytes());
  }

  @Override
  public void close() {}
}
