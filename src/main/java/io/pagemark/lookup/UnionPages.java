package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pages of a union of groups of one build ("rating 3 or 5"), without the union ever being stored: its count, and
 * where any page starts as one Query per group (see {@link UnionPageStart}). The union's ascending order is by sort
 * key, equal sort keys of different groups by group key, and each group's items in DynamoDB's own order; descending
 * reverses sort keys and group keys and reads each group in DynamoDB's descending order (see {@code docs/unions.md}).
 *
 * <p>Get one from {@link Index#union(List)} and close it when done. Every group is read from one build; a group the
 * build does not hold counts as empty. Thread-safe when its groups are.
 */
public final class UnionPages implements AutoCloseable {
  /** The most groups a union takes: each is one Query a page. */
  public static final int MAX_GROUPS = 64;

  private final List<GroupPages> groups;
  private final String buildId;

  /** {@code groups} of one build, sorted by group key. */
  UnionPages(List<GroupPages> groups, String buildId) {
    this.groups = groups;
    this.buildId = buildId;
  }

  /**
   * Opens the union of {@code keys} in {@code index}: each group once, checked to come from one build.
   *
   * @throws NullPointerException if an argument or a key is null
   * @throws IllegalArgumentException for no key, more than {@link #MAX_GROUPS}, a key given twice, or a key not of the
   *     index's group type
   * @throws GroupRepublishedException when the store answered two groups from two builds (open the union again)
   * @throws IOException when the store cannot be read
   */
  static UnionPages open(Index index, List<KeyValue> keys) throws IOException {
    Objects.requireNonNull(index, "index");
    TreeSet<KeyValue> sorted = new TreeSet<>(KeyValue.ORDER);
    for (KeyValue k : Objects.requireNonNull(keys, "keys")) {
      if (!sorted.add(Objects.requireNonNull(k, "group key"))) {
        throw new IllegalArgumentException("group " + k + " is given twice; give each group of a union once");
      }
    }
    if (sorted.isEmpty() || sorted.size() > MAX_GROUPS) {
      throw new IllegalArgumentException(
          "a union takes 1 to " + MAX_GROUPS + " groups, not " + sorted.size());
    }
    List<GroupPages> opened = new ArrayList<>();
    List<KeyValue> missing = new ArrayList<>();
    try {
      for (KeyValue k : sorted) {
        try {
          opened.add(index.group(k));
        } catch (GroupNotFoundException e) {
          missing.add(k);
        }
      }
      String build = opened.isEmpty() ? index.buildId() : opened.get(0).buildId();
      for (GroupPages g : opened) {
        if (!g.buildId().equals(build)) {
          throw new GroupRepublishedException("group " + opened.get(0).group() + " is of build " + build
              + " but group " + g.group() + " of build " + g.buildId()
              + "; a union reads one build: open the union again once the publish is over, or pin a build");
        }
      }
      List<KeyAttribute> attributes = opened.isEmpty() ? List.of() : opened.get(0).attributes();
      for (KeyValue k : missing) {
        opened.add(new GroupPages(new EmptyGroup(k, index.groupAttribute(), attributes, build)));
      }
      opened.sort((a, b) -> KeyValue.ORDER.compare(a.group(), b.group()));
      return new UnionPages(List.copyOf(opened), build);
    } catch (IOException | RuntimeException e) {
      for (GroupPages g : opened) {
        try {
          g.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  /**
   * The union of groups already open (a server that holds its groups open, say); closing the union closes them.
   *
   * @throws NullPointerException if {@code groups} or a group is null
   * @throws IllegalArgumentException for no group, more than {@link #MAX_GROUPS}, a group given twice, or groups of
   *     two builds
   */
  public static UnionPages of(List<GroupPages> groups) {
    List<GroupPages> sorted = new ArrayList<>(Objects.requireNonNull(groups, "groups"));
    sorted.forEach(g -> Objects.requireNonNull(g, "group"));
    if (sorted.isEmpty() || sorted.size() > MAX_GROUPS) {
      throw new IllegalArgumentException("a union takes 1 to " + MAX_GROUPS + " groups, not " + sorted.size());
    }
    sorted.sort((a, b) -> KeyValue.ORDER.compare(a.group(), b.group()));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).group().equals(sorted.get(i - 1).group())) {
        throw new IllegalArgumentException(
            "group " + sorted.get(i).group() + " is given twice; give each group of a union once");
      }
      if (!sorted.get(i).buildId().equals(sorted.get(0).buildId())) {
        throw new IllegalArgumentException("group " + sorted.get(0).group() + " is of build "
            + sorted.get(0).buildId() + " but group " + sorted.get(i).group() + " of build "
            + sorted.get(i).buildId() + "; a union reads one build");
      }
    }
    return new UnionPages(List.copyOf(sorted), sorted.get(0).buildId());
  }

  /** The group keys, in DynamoDB's order. */
  public List<KeyValue> groups() {
    List<KeyValue> keys = new ArrayList<>();
    groups.forEach(g -> keys.add(g.group()));
    return keys;
  }

  /** The build every group is read from. */
  public String buildId() {
    return buildId;
  }

  /** Entries of the union: the sum of its groups' counts. */
  public long count() {
    long n = 0;
    for (GroupPages g : groups) {
      n += g.count();
    }
    return n;
  }

  /**
   * Pages of {@code pageSize} entries.
   *
   * @throws IllegalArgumentException if {@code pageSize} is below 1
   */
  public long pages(int pageSize) {
    GroupPages.checkPageSize(pageSize);
    return (count() + pageSize - 1) / pageSize;
  }

  /**
   * Where page {@code page} (from 1) of {@code pageSize} entries starts when the union is read in {@code order}.
   *
   * @throws NullPointerException if {@code order} is null
   * @throws IllegalArgumentException if {@code pageSize} is below 1
   * @throws PageOutOfRangeException if the page is outside 1..{@link #pages(int)}
   * @throws GroupRepublishedException if the store replaced a group while this read it (open the union again)
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  public UnionPageStart pageStart(long page, int pageSize, Order order) throws LookupException, IOException {
    Objects.requireNonNull(order, "order");
    GroupPages.checkPageSize(pageSize);
    // Each group is read through snapshots of one of its states: its count first, then its count and every record
    // the selection has asked for so far, read again at once whenever it needs one more. The page start is computed
    // from the latest snapshots only, so no group's share of the page mixes two of its states under the stream.
    List<RankedGroup> views = new ArrayList<>();
    List<TreeSet<Long>> asked = new ArrayList<>();
    for (GroupPages g : groups) {
      views.add(g.records().snapshot(Set.of()));
      asked.add(new TreeSet<>());
    }
    while (true) {
      try {
        return pageStart(views, page, pageSize, order);
      } catch (UnionSelection.Missing missing) {
        TreeSet<Long> ranks = asked.get(missing.group);
        if (!ranks.add(missing.rank)) {
          throw new IllegalStateException("a snapshot of group " + groups.get(missing.group).group()
              + " lacks rank " + missing.rank + " although it was asked for", missing);
        }
        views.set(missing.group, groups.get(missing.group).records().snapshot(Collections.unmodifiableSet(ranks)));
      }
    }
  }

  private UnionPageStart pageStart(List<RankedGroup> views, long page, int pageSize, Order order)
      throws LookupException, IOException {
    UnionSelection selection = new UnionSelection(views);
    long pages = (selection.total() + pageSize - 1) / pageSize;
    if (page < 1 || page > pages) {
      throw new PageOutOfRangeException("the union of groups " + groups() + " has " + pages + " page"
          + (pages == 1 ? "" : "s") + " of " + pageSize + "; page " + page + " is out of range");
    }
    long first = (page - 1) * pageSize;
    long[] from = selection.before(first, order);
    long[] to = selection.before(Math.min(selection.total(), first + pageSize), order);
    List<UnionPageStart.GroupStart> starts = new ArrayList<>();
    for (int g = 0; g < groups.size(); g++) {
      long take = to[g] - from[g];
      starts.add(take == 0
          ? new UnionPageStart.GroupStart(groups.get(g).group(), from[g], null, 0, 0)
          : new GroupPages(selection.records(g)).startAt(from[g], take, order));
    }
    return new UnionPageStart(groups(), page, pageSize, order, selection.total(), pages, buildId, starts,
        selection.reads());
  }

  /** The opened groups, in the order of {@link #groups()}. */
  List<GroupPages> groupPages() {
    return groups;
  }

  /**
   * Closes every group.
   *
   * @throws IOException if closing one fails (the others are closed still)
   */
  @Override
  public void close() throws IOException {
    IOException failed = null;
    for (GroupPages g : groups) {
      try {
        g.close();
      } catch (IOException e) {
        if (failed == null) {
          failed = e;
        } else {
          failed.addSuppressed(e);
        }
      }
    }
    if (failed != null) {
      throw failed;
    }
  }

  /** A group the build does not hold: no item had that group key when it was built. */
  private record EmptyGroup(KeyValue group, String groupAttribute, List<KeyAttribute> attributes, String buildId)
      implements RankedGroup {
    @Override
    public long count() {
      return 0;
    }

    @Override
    public IndexRecord record(long rank) {
      throw new IndexOutOfBoundsException("group " + group + " is empty");
    }

    @Override
    public void close() {}
  }
}
