package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A group's count and some of its records, read from one state of a store that changes groups in place (Redis under
 * the change stream): what {@link RankedGroup#near} (a contiguous range) and {@link RankedGroup#snapshot} (given
 * ranks) return. {@link GroupPages} and {@link UnionPages} compute a page start from windows alone; asking for a rank
 * the window does not hold makes them read a window that holds it too, never mix two states. Immutable.
 */
public final class RankWindow implements RankedGroup {
  private final RankedGroup group;
  private final long count;
  private final TreeMap<Long, IndexRecord> records = new TreeMap<>();

  /**
   * A window of {@code group}: its count, and its records from {@code firstRank} on, all read at once.
   *
   * @throws NullPointerException if {@code group} or {@code records} is null
   * @throws IllegalArgumentException if the records do not lie inside 0..count-1
   */
  public RankWindow(RankedGroup group, long count, long firstRank, List<IndexRecord> records) {
    this(group, count, ranked(firstRank, records));
  }

  /**
   * A window of {@code group}: its count, and its records by ascending rank, all read at once.
   *
   * @throws NullPointerException if {@code group}, {@code records} or a record is null
   * @throws IllegalArgumentException if a rank lies outside 0..count-1
   */
  public RankWindow(RankedGroup group, long count, Map<Long, IndexRecord> records) {
    this.group = Objects.requireNonNull(group, "group");
    Objects.requireNonNull(records, "records")
        .forEach((rank, r) -> this.records.put(rank, Objects.requireNonNull(r, "record")));
    if (count < 0 || (!this.records.isEmpty() && (this.records.firstKey() < 0 || this.records.lastKey() >= count))) {
      throw new IllegalArgumentException("records at ranks " + this.records.keySet() + " of a group of " + count);
    }
    this.count = count;
  }

  private static Map<Long, IndexRecord> ranked(long firstRank, List<IndexRecord> records) {
    Map<Long, IndexRecord> ranked = new TreeMap<>();
    for (int i = 0; i < records.size(); i++) {
      ranked.put(firstRank + i, records.get(i));
    }
    return ranked;
  }

  @Override
  public KeyValue group() {
    return group.group();
  }

  @Override
  public String groupAttribute() {
    return group.groupAttribute();
  }

  @Override
  public List<KeyAttribute> attributes() {
    return group.attributes();
  }

  @Override
  public String buildId() {
    return group.buildId();
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public IndexRecord record(long rank) {
    if (rank < 0 || rank >= count) {
      throw new IndexOutOfBoundsException("rank " + rank + " of " + count);
    }
    IndexRecord r = records.get(rank);
    if (r == null) {
      throw new Outside(rank);
    }
    return r;
  }

  /** A window never holds more than it read: nothing to release. */
  @Override
  public RankedGroup near(long position, Order order, int radius) {
    return this;
  }

  /** A window never holds more than it read. */
  @Override
  public RankedGroup snapshot(Set<Long> ranks) {
    return this;
  }

  @Override
  public void close() {}

  /** A record outside the window was asked for: {@link GroupPages} reads a wider one. */
  static final class Outside extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final long rank;

    Outside(long rank) {
      super("rank " + rank + " is outside the window", null, false, false);
      this.rank = rank;
    }
  }
}
