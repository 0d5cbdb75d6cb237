package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A union over a store that changes groups in place reads each group only through {@link RankedGroup#snapshot}: its
 * page starts equal those of the same groups read record by record, and when a group changes between two snapshots
 * the page start is that of the union before or after the change, never a mix.
 */
class UnionSnapshotTest {
  /** A group read only through snapshots; after {@code switchAfter} of them it answers from its second state. */
  static final class InPlaceGroup implements RankedGroup {
    private final List<List<IndexRecord>> states;
    private final KeyValue group;
    private final int switchAfter;
    private int snapshots;

    InPlaceGroup(KeyValue group, List<List<IndexRecord>> states, int switchAfter) {
      this.group = group;
      this.states = states;
      this.switchAfter = switchAfter;
    }

    @Override
    public RankedGroup snapshot(Set<Long> ranks) {
      List<IndexRecord> now = states.get(snapshots++ < switchAfter ? 0 : states.size() - 1);
      Map<Long, IndexRecord> read = new TreeMap<>();
      for (long r : ranks) {
        if (r < now.size()) {
          read.put(r, now.get((int) r));
        }
      }
      return new RankWindow(this, now.size(), read);
    }

    @Override
    public IndexRecord record(long rank) {
      throw new AssertionError("a union read rank " + rank + " of group " + group + " outside a snapshot");
    }

    @Override
    public long count() {
      return states.get(0).size();
    }

    @Override
    public KeyValue group() {
      return group;
    }

    @Override
    public String groupAttribute() {
      return SimulatedGroup.GROUP_ATTRIBUTE;
    }

    @Override
    public List<KeyAttribute> attributes() {
      return SimulatedGroup.ATTRIBUTES;
    }

    @Override
    public String buildId() {
      return "test";
    }

    @Override
    public void close() {}
  }

  static UnionPages plain(List<SimulatedGroup> sims) {
    List<GroupPages> pages = new ArrayList<>();
    for (SimulatedGroup s : sims) {
      pages.add(new GroupPages(new ListGroup(s.group(), SimulatedGroup.GROUP_ATTRIBUTE, SimulatedGroup.ATTRIBUTES,
          s.records(r -> r % 3 != 0))));
    }
    return UnionPages.of(pages);
  }

  @Test
  void snapshotsGiveThePageStartsOfRecordReads() throws Exception {
    Random rnd = new Random(UnionSelectionTest.SEED + 7);
    long pages = 0;
    for (int round = 0; round < 30; round++) {
      List<SimulatedGroup> sims = UnionSelectionTest.randomUnion(rnd, 1 + rnd.nextInt(UnionSelectionTest.KEYS.size()));
      List<GroupPages> inPlace = new ArrayList<>();
      for (SimulatedGroup s : sims) {
        inPlace.add(new GroupPages(new InPlaceGroup(s.group(), List.of(s.records(r -> r % 3 != 0)), 0)));
      }
      try (UnionPages want = plain(sims); UnionPages got = UnionPages.of(inPlace)) {
        for (Order order : Order.values()) {
          for (long p = 1; p <= want.pages(5); p++) {
            assertThat("round " + round + " page " + p + " " + order, got.pageStart(p, 5, order),
                equalTo(want.pageStart(p, 5, order)));
            pages++;
          }
        }
      }
    }
    assertThat(pages, greaterThan(300L));
  }

  @Test
  void aGroupThatChangesBetweenSnapshotsGivesThePageOfOneOfItsStates() throws Exception {
    Random rnd = new Random(UnionSelectionTest.SEED + 8);
    int sawBefore = 0;
    int sawAfter = 0;
    for (int round = 0; round < 200; round++) {
      List<SimulatedGroup> before = UnionSelectionTest.randomUnion(rnd, 3);
      List<SimulatedGroup> after = new ArrayList<>(before);
      int changed = rnd.nextInt(3);
      after.set(changed, SimulatedGroup.random(rnd, before.get(changed).group(), 300));
      List<GroupPages> inPlace = new ArrayList<>();
      for (int g = 0; g < 3; g++) {
        List<List<IndexRecord>> states = List.of(before.get(g).records(r -> r % 3 != 0),
            after.get(g).records(r -> r % 3 != 0));
        inPlace.add(new GroupPages(new InPlaceGroup(before.get(g).group(), states, 1 + rnd.nextInt(6))));
      }
      try (UnionPages b = plain(before); UnionPages a = plain(after); UnionPages u = UnionPages.of(inPlace)) {
        if (Math.min(b.pages(4), a.pages(4)) == 0) {
          continue;
        }
        long page = 1 + rnd.nextInt((int) Math.min(b.pages(4), a.pages(4)));
        Order order = rnd.nextBoolean() ? Order.ASC : Order.DESC;
        UnionPageStart got = u.pageStart(page, 4, order);
        UnionPageStart wantBefore = b.pageStart(page, 4, order);
        UnionPageStart wantAfter = a.pageStart(page, 4, order);
        if (got.equals(wantAfter)) {
          sawAfter++;
        } else if (got.equals(wantBefore)) {
          sawBefore++;
        } else {
          throw new AssertionError("round " + round + ": page " + page + " " + order + " is " + got
              + ", neither the union before the change (" + wantBefore + ") nor after it (" + wantAfter + ")");
        }
      }
    }
    assertThat("some page starts read the changed group only before the change", sawBefore, greaterThan(0));
    assertThat("some read it after", sawAfter, greaterThan(0));
  }
}
