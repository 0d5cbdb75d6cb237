package io.pagemark.server.resp;

import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.RankedGroup;
import java.io.IOException;
import java.util.List;

/**
 * A group file read through {@link GroupFile}, record by decoded record: how the RESP server reads a group file of
 * format version 2, whose records hold codec-encoded slots and whose ties live in a table {@link GroupFile} keeps
 * (docs/format-v2.md). Each record is one positioned read; {@link FileGroupView} stays the zero-copy path for
 * version 1.
 */
final class DecodedGroupView implements GroupView {
  private final GroupFile file;
  private final GroupHeader header;
  private final long count;
  private final Members members;
  private byte[] values = new byte[64];

  DecodedGroupView(GroupFile file) {
    this.file = file;
    this.header = file.header();
    this.count = header.entryCount();
    this.members = new Members(header.groupAttribute(), header.groupKey(), header.attributes());
  }

  @Override
  public KeyValue group() {
    return header.groupKey();
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public Members members() {
    return members;
  }

  @Override
  public void range(long lo, long hi, boolean downwards) {
    // every record is one positioned read of a few bytes; the page cache does the rest
  }

  @Override
  public void endRange() {}

  @Override
  public int member(long rank, Scratch out) throws IOException {
    IndexRecord r = file.record(rank);
    int need = 0;
    for (KeyValue k : r.keys()) {
      need += 2 + k.length();
    }
    if (values.length < need) {
      values = new byte[Math.max(need, 2 * values.length)];
    }
    int p = 0;
    for (KeyValue k : r.keys()) { // the values as Members reads them: a 2-byte length, then the bytes
      byte[] b = k.bytes();
      values[p] = (byte) (b.length >>> 8);
      values[p + 1] = (byte) b.length;
      System.arraycopy(b, 0, values, p + 2, b.length);
      p += 2 + b.length;
    }
    return members.encode(values, 0, out);
  }

  @Override
  public long ascendingAt(long position) throws IOException {
    long p = count - 1 - position;
    IndexRecord r = file.record(p);
    if (r.runLength() == 1) {
      return p;
    }
    long runStart = p - r.tiePosition();
    long offset = position - (count - (runStart + r.runLength()));
    int slot = offset == r.tiePosition() ? r.descendingSlot() : file.record(runStart + offset).descendingSlot();
    return runStart + slot;
  }

  @Override
  public long descendingOf(long rank) throws IOException {
    IndexRecord r = file.record(rank);
    if (r.runLength() == 1) {
      return count - 1 - rank;
    }
    long runStart = rank - r.tiePosition();
    long runEnd = runStart + r.runLength();
    for (int k = 0; k < r.runLength(); k++) {
      if (file.record(runStart + k).descendingSlot() == r.tiePosition()) {
        return (count - runEnd) + k;
      }
    }
    throw new IndexFormatException(file.name(), "no descending slot names run position " + r.tiePosition()
        + " of the run at rank " + runStart);
  }

  @Override
  public long rankOf(List<KeyValue> keys) throws IOException {
    if (keys.size() != header.attributes().size() || count == 0) {
      return -1;
    }
    KeyValue sortKey = keys.get(0);
    long lo = 0;
    long hi = count;
    while (lo < hi) { // the first rank whose sort key is at or above the member's
      long mid = (lo + hi) >>> 1;
      if (file.record(mid).sortKey().compareTo(sortKey) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == count) {
      return -1;
    }
    IndexRecord first = file.record(lo);
    if (first.sortKey().compareTo(sortKey) != 0) {
      return -1;
    }
    for (long r = lo; r < lo + first.runLength(); r++) {
      if (file.record(r).keys().equals(keys)) {
        return r;
      }
    }
    return -1;
  }

  @Override
  public GroupPages pages() {
    return new GroupPages(new RankedGroup() {
      @Override
      public KeyValue group() {
        return header.groupKey();
      }

      @Override
      public String groupAttribute() {
        return header.groupAttribute();
      }

      @Override
      public List<KeyAttribute> attributes() {
        return header.attributes();
      }

      @Override
      public String buildId() {
        return header.buildId();
      }

      @Override
      public long count() {
        return count;
      }

      @Override
      public IndexRecord record(long rank) throws IOException {
        return file.record(rank);
      }

      @Override
      public void close() {}
    });
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
