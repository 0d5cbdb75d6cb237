package io.pagemark.server.resp;

import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.RankedGroup;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A group file read with positioned reads (the file index's fast path): a record is one {@code pread} of its fixed
 * width into the event loop's buffer, and a member is encoded from the record's bytes without decoding it. Reads go
 * through the page cache rather than a mapping, so the server's resident memory does not grow with the index: the
 * kernel keeps hot pages for every process and drops cold ones. A range is read in blocks of up to 64 kB, and the
 * event loop keeps its 256 most recently read single records. A group file of format version 2 is read the same
 * way: {@link GroupFile#readUnpacked} decodes its records into the version-1 layout this view works on.
 */
final class FileGroupView implements GroupView {
  /**
   * The event loop's read buffers, shared by its views: a block of records of one view, and a small cache of single
   * records by rank (hot ranks, such as the starts of the first pages, are then read without a system call).
   */
  static final class Buffers {
    static final int CACHED = 256;
    final byte[] block = new byte[64 * 1024];
    Object owner;
    long first;
    int records;
    final Object[] cachedOwner = new Object[CACHED];
    final long[] cachedRank = new long[CACHED];
    final byte[][] cached = new byte[CACHED][];
  }

  private static final int PREFIX = 12; // tiePosition, runLength word, descendingSlot
  private static final int RUN_ORDER_UNKNOWN = 0x8000_0000;

  private final GroupFile groupFile;
  private final GroupHeader header;
  private final int width; // of a record in the version-1 layout
  private final long count;
  private final Members members;
  private final Buffers buffers;
  private final Path file;
  private long rangeLo = -1;
  private long rangeHi = -2;
  private boolean downwards;
  /** The array {@link #locate} read the record into. */
  private byte[] at;
  /** Spreads the views of a loop over the record cache. */
  private final int salt = System.identityHashCode(this);

  private FileGroupView(Path file, GroupFile groupFile, Buffers buffers) {
    this.file = file;
    this.groupFile = groupFile;
    this.header = groupFile.header();
    this.width = groupFile.unpackedRecordWidth();
    this.count = header.entryCount();
    this.members = new Members(header.groupAttribute(), header.groupKey(), header.attributes());
    this.buffers = buffers;
  }

  /**
   * Opens a group file of a build after checking it as {@link GroupFile#open} does (magic, version, header checksum,
   * length) and that it holds {@code group} of that build.
   *
   * @param holdsFilesOf whether a file written by a build id belongs to the served build
   */
  static GroupView open(Path file, KeyValue group, java.util.function.Predicate<String> holdsFilesOf,
      Buffers buffers) throws IOException {
    GroupFile f = GroupFile.open(file);
    GroupHeader h = f.header();
    if (!h.groupKey().equals(group) || !holdsFilesOf.test(h.buildId())) {
      f.close();
      throw new IndexFormatException(file, "holds group " + h.groupKey() + " of build " + h.buildId()
          + ", expected " + group + " of the served build");
    }
    return new FileGroupView(file, f, buffers);
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
    this.rangeLo = Math.max(0, lo);
    this.rangeHi = Math.min(count - 1, hi);
    this.downwards = downwards;
  }

  @Override
  public void endRange() {
    rangeLo = -1;
    rangeHi = -2;
  }

  @Override
  public int member(long rank, Scratch out) throws IOException {
    int p = locate(rank);
    return members.encode(at, p + PREFIX, out);
  }

  @Override
  public long ascendingAt(long position) throws IOException {
    long p = count - 1 - position;
    int o = locate(p);
    int tie = intAt(o);
    int run = intAt(o + 4) & ~RUN_ORDER_UNKNOWN;
    if (run == 1) {
      return p;
    }
    long runStart = p - tie;
    long offset = position - (count - (runStart + run));
    int slot = offset == tie ? intAt(o + 8) : intAt(locate(runStart + offset) + 8);
    return runStart + slot;
  }

  @Override
  public long descendingOf(long rank) throws IOException {
    int o = locate(rank);
    int tie = intAt(o);
    int run = intAt(o + 4) & ~RUN_ORDER_UNKNOWN;
    if (run == 1) {
      return count - 1 - rank;
    }
    long runStart = rank - tie;
    long runEnd = runStart + run;
    boolean announced = rangeLo >= 0;
    if (!announced) {
      range(runStart, runEnd - 1, false);
    }
    try {
      for (int k = 0; k < run; k++) {
        if (intAt(locate(runStart + k) + 8) == tie) {
          return (count - runEnd) + k;
        }
      }
    } finally {
      if (!announced) {
        endRange();
      }
    }
    throw new IndexFormatException(file, "no descending slot names run position " + tie + " of the run at rank "
        + runStart);
  }

  @Override
  public long rankOf(List<KeyValue> keys) throws IOException {
    if (keys.size() != header.attributes().size() || count == 0) {
      return -1;
    }
    KeyValue sortKey = keys.get(0);
    byte[][] wanted = new byte[keys.size()][];
    for (int i = 0; i < keys.size(); i++) {
      wanted[i] = keys.get(i).bytes();
    }
    long lo = 0;
    long hi = count;
    while (lo < hi) { // the first rank whose sort key is at or above the member's
      long mid = (lo + hi) >>> 1;
      if (compareSortKey(locate(mid) + PREFIX, sortKey, wanted[0]) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == count) {
      return -1;
    }
    int o = locate(lo);
    if (compareSortKey(o + PREFIX, sortKey, wanted[0]) != 0) {
      return -1;
    }
    int run = intAt(o + 4) & ~RUN_ORDER_UNKNOWN;
    range(lo, lo + run - 1, false);
    try {
      for (long r = lo; r < lo + run; r++) {
        if (sameKeys(locate(r) + PREFIX, keys, wanted)) {
          return r;
        }
      }
    } finally {
      endRange();
    }
    return -1;
  }

  private int compareSortKey(int values, KeyValue sortKey, byte[] wanted) {
    int length = ((at[values] & 0xFF) << 8) | (at[values + 1] & 0xFF);
    KeyType type = header.attributes().get(0).type();
    if (type != sortKey.type()) {
      return Integer.compare(type.code(), sortKey.type().code());
    }
    if (type == KeyType.N) {
      return KeyValue.of(KeyType.N, Arrays.copyOfRange(at, values + 2, values + 2 + length)).compareTo(sortKey);
    }
    return Arrays.compareUnsigned(at, values + 2, values + 2 + length, wanted, 0, wanted.length);
  }

  private boolean sameKeys(int values, List<KeyValue> keys, byte[][] wanted) {
    int p = values;
    for (int i = 0; i < keys.size(); i++) {
      int length = ((at[p] & 0xFF) << 8) | (at[p + 1] & 0xFF);
      KeyAttribute a = header.attributes().get(i);
      if (a.type() != keys.get(i).type()) {
        return false;
      }
      boolean same = a.type() == KeyType.N
          ? KeyValue.of(KeyType.N, Arrays.copyOfRange(at, p + 2, p + 2 + length)).equals(keys.get(i))
          : Arrays.equals(at, p + 2, p + 2 + length, wanted[i], 0, wanted[i].length);
      if (!same) {
        return false;
      }
      p += 2 + length;
    }
    return true;
  }

  @Override
  public GroupPages pages() {
    return new GroupPages(new Ranked());
  }

  /** This view's records decoded, for {@link GroupPages}. */
  private final class Ranked implements RankedGroup {
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
      if (rank < 0 || rank >= count) {
        throw new IndexOutOfBoundsException("rank " + rank + " of " + count);
      }
      int o = locate(rank);
      int runWord = intAt(o + 4);
      List<KeyValue> keys = new ArrayList<>(header.attributes().size());
      int p = o + PREFIX;
      for (KeyAttribute a : header.attributes()) {
        int length = ((at[p] & 0xFF) << 8) | (at[p + 1] & 0xFF);
        keys.add(KeyValue.of(a.type(), Arrays.copyOfRange(at, p + 2, p + 2 + length)));
        p += 2 + length;
      }
      return new IndexRecord(intAt(o), runWord & ~RUN_ORDER_UNKNOWN, (runWord & RUN_ORDER_UNKNOWN) == 0,
          intAt(o + 8), keys);
    }

    @Override
    public void close() {}
  }

  /**
   * Makes the record at {@code rank} readable in {@link #at} and returns its offset there: from the loop's block
   * when it holds it, else by reading a block of the announced range, else by reading the record alone.
   */
  private int locate(long rank) throws IOException {
    Buffers b = buffers;
    if (b.owner == this && rank >= b.first && rank < b.first + b.records) {
      at = b.block;
      return (int) (rank - b.first) * width;
    }
    if (rank >= rangeLo && rank <= rangeHi && width <= b.block.length / 2) {
      int fit = b.block.length / width;
      long from = downwards ? Math.max(rangeLo, rank - fit + 1) : rank;
      long to = downwards ? rank : Math.min(rangeHi, rank + fit - 1);
      int n = (int) (to - from + 1);
      b.owner = null; // a failed read leaves no stale block behind
      read(from, n, b.block);
      b.owner = this;
      b.first = from;
      b.records = n;
      at = b.block;
      return (int) (rank - from) * width;
    }
    int slot = (int) (rank ^ (rank >>> 17) ^ salt) & (Buffers.CACHED - 1);
    byte[] one = b.cached[slot];
    if (b.cachedOwner[slot] == this && b.cachedRank[slot] == rank) {
      at = one;
      return 0;
    }
    if (one == null || one.length < width) {
      one = new byte[Math.max(width, 64)];
      b.cached[slot] = one;
    }
    b.cachedOwner[slot] = null; // a failed read leaves no stale record behind
    read(rank, 1, one);
    b.cachedOwner[slot] = this;
    b.cachedRank[slot] = rank;
    at = one;
    return 0;
  }

  private void read(long rank, int records, byte[] into) throws IOException {
    groupFile.readUnpacked(rank, records, into, 0);
  }

  private int intAt(int o) {
    byte[] a = at;
    return ((a[o] & 0xFF) << 24) | ((a[o + 1] & 0xFF) << 16) | ((a[o + 2] & 0xFF) << 8) | (a[o + 3] & 0xFF);
  }

  @Override
  public void close() throws IOException {
    if (buffers.owner == this) {
      buffers.owner = null;
    }
    for (int i = 0; i < Buffers.CACHED; i++) {
      if (buffers.cachedOwner[i] == this) {
        buffers.cachedOwner[i] = null;
      }
    }
    groupFile.close();
  }
}
