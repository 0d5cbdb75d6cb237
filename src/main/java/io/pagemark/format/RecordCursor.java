package io.pagemark.format;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a group file's records in rank order, a block of encoded records at a time, and copies the runs a merge
 * leaves unchanged to a {@link GroupFileWriter} without decoding them: to find where a sort key's records begin it
 * compares the last record of each block, and binary-searches only the block that holds the boundary, so a merge of
 * k changes into n records decodes about {@code k * log2(block)} sort keys, not n records. The records of a version-2
 * file are encoded with that file's codecs, so they are copied decoded (and re-encoded by the writer). Not
 * thread-safe.
 */
public final class RecordCursor {
  private static final int BLOCK_BYTES = 1 << 20;

  private final GroupFile file;
  private final int width;
  private final long count;
  private final KeyType sortType;
  private final ByteBuffer block;
  private long blockRank; // rank of the block's first record
  private int blockRecords; // records in the block
  private int next; // index in the block of the next record
  private KeyValue lastKey;
  private byte[] lastKeyBytes;
  private final byte[] sortKey; // the compared record's sort key, copied out of the block
  private final boolean encodedCopies; // version 1: runs of records are copied as they are
  private ByteBuffer unpackedChunk; // version 2: records re-encoded as version 1 for a copy

  RecordCursor(GroupFile file) {
    this.file = file;
    this.width = file.header().recordWidth();
    this.count = file.count();
    this.sortType = file.header().attributes().get(0).type();
    // direct: the file's bytes land here with one copy, and the writer digests and writes them from here
    this.block = ByteBuffer.allocateDirect(Math.max(1, BLOCK_BYTES / width) * width);
    this.sortKey = new byte[width];
    this.encodedCopies = file.formatVersion() == GroupFileFormat.VERSION_1;
  }

  /** Rank of the next record. */
  public long rank() {
    return blockRank + next;
  }

  public boolean hasNext() {
    return rank() < count;
  }

  /** The next record's sort key compared with {@code key}, in DynamoDB's order; requires {@link #hasNext()}. */
  public int compareNextSortKey(KeyValue key) throws IOException {
    fill();
    return compare(next, key);
  }

  /** Decodes the next record and moves past it; requires {@link #hasNext()}. */
  public IndexRecord next() throws IOException {
    fill();
    IndexRecord r = decode(next);
    next++;
    return r;
  }

  private IndexRecord decode(int i) throws IOException {
    return file.decode(block.duplicate().limit((i + 1) * width).position(i * width).slice(), blockRank + i);
  }

  /** Copies the block's records {@code [from, to)} to {@code out}. */
  private void copy(int from, int to, GroupFileWriter out) throws IOException {
    if (encodedCopies) {
      out.appendEncoded(records(from, to), width);
      return;
    }
    // version 2: re-encode as version-1 records in chunks, which the writer copies (or spools) as bytes
    int unpacked = file.unpackedRecordWidth();
    int chunk = Math.max(1, Math.min(to - from, (1 << 18) / unpacked));
    if (unpackedChunk == null || unpackedChunk.capacity() < chunk * unpacked) {
      unpackedChunk = ByteBuffer.allocate(chunk * unpacked);
    }
    for (int i = from; i < to; ) {
      int n = Math.min(chunk, to - i);
      ByteBuffer v1 = unpackedChunk.clear().limit(n * unpacked);
      Arrays.fill(v1.array(), 0, n * unpacked, (byte) 0);
      for (int j = 0; j < n; j++, i++) {
        file.toVersion1(block.duplicate().limit((i + 1) * width).position(i * width), blockRank + i, v1, j * unpacked);
      }
      out.appendEncoded(v1, unpacked);
    }
  }

  /** Copies the following records whose sort keys are below {@code key} to {@code out}, unchanged. */
  public void copyWhileBelow(KeyValue key, GroupFileWriter out) throws IOException {
    checkTarget(out);
    while (hasNext()) {
      fill();
      int lo = next;
      int hi = blockRecords;
      if (compare(hi - 1, key) < 0) {
        copy(lo, hi, out);
        next = hi;
        continue;
      }
      while (lo < hi) { // the first record of the block at or above key
        int mid = (lo + hi) >>> 1;
        if (compare(mid, key) < 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      copy(next, lo, out);
      next = lo;
      return;
    }
  }

  /** Copies every remaining record to {@code out}, unchanged. */
  public void copyRest(GroupFileWriter out) throws IOException {
    checkTarget(out);
    while (hasNext()) {
      fill();
      copy(next, blockRecords, out);
      next = blockRecords;
    }
  }

  /** The block's records {@code [from, to)}. */
  private ByteBuffer records(int from, int to) {
    return block.duplicate().limit(to * width).position(from * width);
  }

  private void checkTarget(GroupFileWriter out) {
    if (!out.header().attributes().equals(file.header().attributes())) {
      throw new IllegalArgumentException("cannot copy records of " + file.name() + " (attributes "
          + file.header().attributes() + ") into a file of attributes " + out.header().attributes());
    }
  }

  /** Makes sure the block holds the next record. */
  private void fill() throws IOException {
    if (next < blockRecords) {
      return;
    }
    blockRank += blockRecords;
    next = 0;
    blockRecords = (int) Math.min(block.capacity() / width, count - blockRank);
    if (blockRecords <= 0) {
      throw new java.util.NoSuchElementException("no record at rank " + blockRank + " of " + count);
    }
    block.clear();
    file.readEncoded(blockRank, blockRecords, block);
  }

  /** The sort key of the block's record {@code i} compared with {@code key}. */
  private int compare(int i, KeyValue key) throws IOException {
    if (!encodedCopies) {
      return decode(i).sortKey().compareTo(key);
    }
    int at = i * width + GroupFileFormat.RECORD_PREFIX_BYTES;
    int length = block.getShort(at) & 0xFFFF;
    if (key.type() != sortType) {
      return Integer.compare(sortType.code(), key.type().code());
    }
    byte[] b = sortKey;
    block.get(at + 2, b, 0, length);
    if (sortType == KeyType.N) {
      return KeyValue.ofNumber(new String(b, 0, length, StandardCharsets.UTF_8)).compareTo(key);
    }
    if (key != lastKey) {
      lastKey = key;
      lastKeyBytes = key.bytes();
    }
    return Arrays.compareUnsigned(b, 0, length, lastKeyBytes, 0, lastKeyBytes.length);
  }
}
