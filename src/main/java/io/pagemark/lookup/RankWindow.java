package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.util.List;
import java.util.Objects;

/**
 * A group's count and a contiguous range of its records, read from one state of a store that changes groups in place
 * (Redis under the change stream): what {@link RankedGroup#near} returns. {@link GroupPages} computes a page start
 * from it alone; asking for a rank outside the range makes it read a wider window, never mix two states. Immutable.
 */
public final class RankWindow implements RankedGroup {
  private final RankedGroup group;
  private final long count;
  private final long firstRank;
  private final List<IndexRecord> records;

  /**
   * A window of {@code group}: its count, and its records from {@code firstRank} on, all read at once.
   *
   * @throws NullPointerException if {@code group} or {@code records} is null
   * @throws IllegalArgumentException if the records do not lie inside 0..count-1
   */
  public RankWindow(RankedGroup group, long count, long firstRank, List<IndexRecord> records) {
    this.group = Objects.requireNonNull(group, "group");
    this.records = List.copyOf(records);
    if (count < 0 || firstRank < 0 || (!this.records.isEmpty() && firstRank + this.records.size() > count)) {
      throw new IllegalArgumentException("records " + firstRank + ".." + (firstRank + this.records.size() - 1)
          + " of a group of " + count);
    }
    this.count = count;
    this.firstRank = firstRank;
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
    if (rank < firstRank || rank >= firstRank + records.size()) {
      throw new Outside();
    }
    return records.get((int) (rank - firstRank));
  }

  /** A window never holds more than it read: nothing to release. */
  @Override
  public RankedGroup near(long position, Order order, int radius) {
    return this;
  }

  @Override
  public void close() {}

  /** A record outside the window was asked for: {@link GroupPages} reads a wider one. */
  static final class Outside extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Outside() {
      super("outside the window", null, false, false);
    }
  }
}
