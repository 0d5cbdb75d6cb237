package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The pages of one group in one build of an index: its count, and where any page starts in either order, as the
 * exclusive start key of one DynamoDB Query. A page start costs at most three record reads when the order of equal
 * sort keys was resolved against DynamoDB at build time (see {@code docs/pages.md}, "Equal sort keys").
 *
 * <p>Get one from {@link Index#group(KeyValue)} and close it when done. Thread-safe when its records are (those of
 * every store of this library are). A store that publishes group by group (Redis) may replace the group while it is
 * read: a read then throws {@link GroupRepublishedException}, and opening the group again answers from the new build.
 */
public final class GroupPages implements AutoCloseable {
  /** The store's records; null when the store holds page starts only ({@link #paged}). */
  private final RankedGroup file;
  private final PagedGroup paged;

  /**
   * Pages over a group's ranked records; closing the pages closes the records. For a store's reader (its
   * {@link Index#group(KeyValue)}); applications get pages from an {@link Index}.
   *
   * @throws NullPointerException if {@code records} is null
   */
  public GroupPages(RankedGroup records) {
    this.file = Objects.requireNonNull(records, "records");
    this.paged = null;
  }

  /**
   * Pages over a store that holds page starts for one page size (page markers inside DynamoDB); closing the pages
   * closes the group. Page starts for any other page size, unions and keys at given ranks are refused with an error
   * that says so.
   *
   * @throws NullPointerException if {@code starts} is null
   */
  public GroupPages(PagedGroup starts) {
    this.file = null;
    this.paged = Objects.requireNonNull(starts, "starts");
  }

  private RankedGroup records(String what) {
    if (file == null) {
      throw new UnsupportedOperationException(what + " needs every rank of the group, and this index holds only the"
          + " starts of pages of " + paged.pageSize() + "; use a file, Redis or PostgreSQL index for it");
    }
    return file;
  }

  /** The group key. */
  public KeyValue group() {
    return file != null ? file.group() : paged.group();
  }

  /** Entries of the group. */
  public long count() {
    return file != null ? file.count() : paged.count();
  }

  /** The build that answers. */
  public String buildId() {
    return file != null ? file.buildId() : paged.buildId();
  }

  /** The group key attribute's name (the GSI's partition key). */
  public String groupAttribute() {
    return file != null ? file.groupAttribute() : paged.groupAttribute();
  }

  /** The sort key attribute's name (the GSI's sort key). */
  public String sortAttribute() {
    return attributes().get(0).name();
  }

  /** Every attribute of an exclusive start key: the group key, the sort key, the table's other key attributes. */
  List<String> keyAttributes() {
    List<String> names = new ArrayList<>();
    names.add(groupAttribute());
    attributes().forEach(a -> names.add(a.name()));
    return names;
  }

  /**
   * Pages of {@code pageSize} entries ({@code ceil(count / pageSize)}).
   *
   * @throws IllegalArgumentException if {@code pageSize} is below 1
   */
  public long pages(int pageSize) {
    checkPageSize(pageSize);
    return (count() + pageSize - 1) / pageSize;
  }

  /**
   * Where page {@code page} (from 1) of {@code pageSize} entries starts when the group is read in {@code order}.
   *
   * @throws NullPointerException if {@code order} is null
   * @throws IllegalArgumentException if {@code pageSize} is below 1
   * @throws PageOutOfRangeException if the page is outside 1..{@link #pages(int)}
   * @throws GroupRepublishedException if the store replaced the group while this read it (open it again)
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  public PageStart pageStart(long page, int pageSize, Order order) throws LookupException, IOException {
    Objects.requireNonNull(order, "order");
    long pages = pages(pageSize);
    if (page < 1 || page > pages) {
      throw new PageOutOfRangeException(
          "group " + group() + " has " + pages + " page" + (pages == 1 ? "" : "s") + " of " + pageSize + "; page "
              + page + " is out of range");
    }
    long rank = (page - 1) * pageSize;
    if (paged != null) {
      if (pageSize != paged.pageSize()) {
        throw new IllegalArgumentException("this index holds the starts of pages of " + paged.pageSize()
            + " only, not of " + pageSize + "; read pages of " + paged.pageSize() + ", or build the markers again"
            + " with --pageSize=" + pageSize);
      }
      PagedGroup.Start s = paged.startAt(rank, order);
      return new PageStart(group(), page, pageSize, order, count(), pages, s.exclusiveStartKey(), s.skip());
    }
    // One window of the group holds the count and every record the start needs, read at once; a start that needs a
    // record outside it (a long run of equal sort keys) reads a wider window, never a second look at a newer state.
    for (int radius = FIRST_RADIUS; ; radius = (int) Math.min(Integer.MAX_VALUE, radius * 16L)) {
      RankedGroup view = file.near(rank, order, radius);
      long n = view.count();
      long now = (n + pageSize - 1) / pageSize;
      if (page > now) {
        throw new PageOutOfRangeException("group " + group() + " has " + now + " page" + (now == 1 ? "" : "s")
            + " of " + pageSize + " since a change; page " + page + " is out of range");
      }
      try {
        Position p = order == Order.ASC ? afterAscending(view, rank) : afterDescending(view, rank);
        return new PageStart(group(), page, pageSize, order, n, now, p.startKey, p.skip);
      } catch (RankWindow.Outside wider) {
        if (radius == Integer.MAX_VALUE) {
          throw new IllegalStateException("a window of every rank missed a record", wider);
        }
      }
    }
  }

  /** Ranks either side of a page start read at first: enough for every start but those inside long runs of ties. */
  private static final int FIRST_RADIUS = 8;

  /**
   * The key of the entry at an ascending rank (from 0), as an exclusive start key would hold it: every key attribute
   * by name, the group key first.
   *
   * @throws IndexOutOfBoundsException if {@code rank} is outside 0..count-1
   * @throws GroupRepublishedException if the store replaced the group while this read it (open it again)
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  public Map<String, KeyValue> keyAt(long rank) throws IOException {
    return startKey(records("the key at a rank").record(rank));
  }

  /**
   * The key of the entry a read of the whole group in {@code order} returns at {@code position} (0-based), as the
   * index saw the group. Inside a run of equal sort keys whose order DynamoDB was not asked at build time, only the
   * sort key is certain: {@code exact} is false and {@code key} names some entry of that run. Null from
   * {@link #expectedAt} when the store holds page starts only and so cannot tell.
   */
  record Expected(Map<String, KeyValue> key, boolean exact) {}

  Expected expectedAt(long position, Order order) throws IOException {
    if (file == null) {
      return null;
    }
    if (order == Order.ASC) {
      IndexRecord r = file.record(position);
      return new Expected(startKey(r), r.runOrderKnown());
    }
    long p = count() - 1 - position;
    IndexRecord r = file.record(p);
    if (!r.runOrderKnown()) {
      return new Expected(startKey(r), false);
    }
    long runStart = p - r.tiePosition();
    long offset = position - (count() - (runStart + r.runLength()));
    IndexRecord slot = offset == r.tiePosition() ? r : file.record(runStart + offset);
    long at = runStart + slot.descendingSlot();
    return new Expected(startKey(at == p ? r : file.record(at)), true);
  }

  /**
   * An entry of the group: its key as an exclusive start key would hold it (every key attribute by name, the group
   * key first) and its ascending rank.
   */
  public record Entry(Map<String, KeyValue> key, long rank) {}

  /**
   * The entries a read of the whole group in {@code order} returns at positions {@code position} to
   * {@code position + n - 1} (0-based; fewer at the group's end, none from {@link #count()} on), each with its
   * ascending rank. Both orders follow DynamoDB's, equal sort keys included, where the index knows DynamoDB's order of
   * them; inside a run it was not told, the ascending order reversed stands in for the descending one.
   *
   * @throws NullPointerException if {@code order} is null
   * @throws IllegalArgumentException if {@code position} is negative or {@code n} is below 1
   * @throws GroupRepublishedException if the store replaced the group while this read it (open it again)
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  public List<Entry> entries(long position, int n, Order order) throws IOException {
    Objects.requireNonNull(order, "order");
    if (position < 0 || n < 1) {
      throw new IllegalArgumentException("entries from position " + position + ", " + n + " of them: the position"
          + " must be at least 0 and the number at least 1");
    }
    if (position >= count()) {
      return List.of();
    }
    if (paged != null) {
      return paged.entries(position, n, order);
    }
    List<Entry> entries = new ArrayList<>();
    long end = Math.min(count(), position + n);
    for (long q = position; q < end; q++) {
      long rank = order == Order.ASC ? q : RankedReads.ascendingAt(file, q);
      entries.add(new Entry(startKey(file.record(rank)), rank));
    }
    return entries;
  }

  /**
   * The position at which a read of the whole group in {@code order} returns the entry with these stored key values
   * (the sort key first, then the table's other key attributes, as {@link #attributes()} lists them), or -1 when the
   * group holds no such entry.
   *
   * @throws NullPointerException if {@code keys} or {@code order} is null
   * @throws GroupRepublishedException if the store replaced the group while this read it (open it again)
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  public long positionOf(List<KeyValue> keys, Order order) throws IOException {
    Objects.requireNonNull(keys, "keys");
    Objects.requireNonNull(order, "order");
    if (keys.size() != attributes().size() || count() == 0) {
      return -1;
    }
    return paged != null ? paged.positionOf(keys, order) : RankedReads.positionOf(file, keys, order);
  }

  /** The ranked records these pages read: what a union of groups selects on. */
  RankedGroup records() {
    return records("a union of groups");
  }

  /** The key attributes of an entry but the group key: the sort key first, then the table's other key attributes. */
  public List<io.pagemark.format.KeyAttribute> attributes() {
    return file != null ? file.attributes() : paged.attributes();
  }

  /** The sort key's type. */
  io.pagemark.key.KeyType sortType() {
    return attributes().get(0).type();
  }

  /**
   * Where a read of the group in {@code order} reaches the entry at {@code position} (0-based, counted in that order;
   * {@code count()} is allowed): a start key and the items to drop after it. Unlike {@link #pageStart}, the position
   * need not start a page, as a union's share of a page does not.
   */
  UnionPageStart.GroupStart startAt(long position, long take, Order order) throws IOException {
    records("a union of groups");
    Position p = order == Order.ASC ? afterAscending(file, position) : afterDescending(file, position);
    return new UnionPageStart.GroupStart(group(), position, p.startKey, p.skip, take);
  }

  private record Position(Map<String, KeyValue> startKey, long skip) {}

  /** A start key after which DynamoDB's ascending read returns the entry at {@code rank} after {@code skip} others. */
  private Position afterAscending(RankedGroup g, long rank) throws IOException {
    long k = rank - 1;
    while (k >= 0) {
      IndexRecord r = g.record(k);
      if (r.runOrderKnown()) {
        return new Position(startKey(r), rank - (k + 1));
      }
      k = k - r.tiePosition() - 1; // before the run whose order is unknown
    }
    return new Position(null, rank);
  }

  /** As {@link #afterAscending}, for ranks counted in descending order. */
  private Position afterDescending(RankedGroup g, long rank) throws IOException {
    long n = g.count();
    long q = rank - 1;
    while (q >= 0) {
      long p = n - 1 - q;
      IndexRecord r = g.record(p);
      long runStart = p - r.tiePosition();
      long runEnd = runStart + r.runLength();
      if (r.runOrderKnown()) {
        long offset = q - (n - runEnd);
        IndexRecord slot = offset == r.tiePosition() ? r : g.record(runStart + offset);
        long at = runStart + slot.descendingSlot();
        IndexRecord item = at == p ? r : g.record(at);
        return new Position(startKey(item), rank - (q + 1));
      }
      q = n - runEnd - 1;
    }
    return new Position(null, rank);
  }

  private Map<String, KeyValue> startKey(IndexRecord r) {
    Map<String, KeyValue> key = new LinkedHashMap<>();
    key.put(file.groupAttribute(), file.group());
    for (int i = 0; i < file.attributes().size(); i++) {
      key.put(file.attributes().get(i).name(), r.keys().get(i));
    }
    return key;
  }

  static void checkPageSize(int pageSize) {
    if (pageSize < 1) {
      throw new IllegalArgumentException("page size must be at least 1, not " + pageSize);
    }
  }

  /**
   * Closes the group's records (a file handle, for a file index).
   *
   * @throws IOException if closing fails
   */
  @Override
  public void close() throws IOException {
    if (file != null) {
      file.close();
    } else {
      paged.close();
    }
  }
}
