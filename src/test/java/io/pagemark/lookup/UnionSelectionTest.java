package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The union's selection and page starts against a brute-force merge of random simulated groups (ties inside and
 * across groups, skewed sizes, empty groups, groups of one item): for every rank, the per-group counts equal those of
 * the merged order; for every page, each group's Query from its start key, dropping {@code skip} and keeping
 * {@code take}, returns exactly that group's items of the brute-force page, in both orders.
 */
class UnionSelectionTest {
  static final long SEED = 1515L;
  /** Group keys in DynamoDB's (UTF-8 byte) order, which differs from Java's String order for the last two. */
  static final List<String> KEYS = List.of("PRODUCT#42/1", "PRODUCT#42/3", "PRODUCT#42/5", "\uE000", "\uD83D\uDE00");

  /** An item of the brute-force union: its group (index into the sorted groups) and its position in the group. */
  record Member(int group, int position, KeyValue sortKey) {}

  static List<Member> bruteForce(List<SimulatedGroup> sims, Order order) {
    List<Member> all = new ArrayList<>();
    for (int g = 0; g < sims.size(); g++) {
      List<SimulatedGroup.Item> items = sims.get(g).readOrder(order);
      for (int i = 0; i < items.size(); i++) {
        all.add(new Member(g, i, items.get(i).sortKey()));
      }
    }
    Comparator<Member> c = Comparator.comparing(Member::sortKey, KeyValue.ORDER).thenComparingInt(Member::group);
    if (order == Order.DESC) {
      c = c.reversed();
    }
    all.sort(c.thenComparingInt(Member::position));
    return all;
  }

  /** Random groups in DynamoDB's group key order; size 0 stands for a group the build does not hold. */
  static List<SimulatedGroup> randomUnion(Random rnd, int k) {
    List<KeyValue> keys = new ArrayList<>();
    KEYS.forEach(s -> keys.add(KeyValue.ofString(s)));
    keys.sort(KeyValue.ORDER);
    List<SimulatedGroup> sims = new ArrayList<>();
    int first = rnd.nextInt(KEYS.size() - k + 1);
    for (int g = 0; g < k; g++) {
      int max = switch (rnd.nextInt(4)) {
        case 0 -> 1;
        case 1 -> 300;
        default -> 40;
      };
      sims.add(SimulatedGroup.random(rnd, keys.get(first + g), max));
    }
    return sims;
  }

  static UnionPages union(List<SimulatedGroup> sims, List<ListGroup> lists, boolean emptyFirst) {
    List<GroupPages> pages = new ArrayList<>();
    for (int g = 0; g < sims.size(); g++) {
      SimulatedGroup s = sims.get(g);
      ListGroup list = new ListGroup(s.group(), SimulatedGroup.GROUP_ATTRIBUTE, SimulatedGroup.ATTRIBUTES,
          emptyFirst && g == 0 ? List.of() : s.records(r -> true));
      lists.add(list);
      pages.add(new GroupPages(list));
    }
    return new UnionPages(pages, "test");
  }

  @Test
  void countsBeforeEveryRankEqualABruteForceMerge() throws Exception {
    Random rnd = new Random(SEED);
    long checked = 0;
    for (int round = 0; round < 60; round++) {
      int k = 1 + rnd.nextInt(KEYS.size());
      List<SimulatedGroup> sims = randomUnion(rnd, k);
      try (UnionPages u = union(sims, new ArrayList<>(), false)) {
        UnionSelection s = new UnionSelection(u.groupPages().stream().map(GroupPages::records).toList());
        for (Order order : Order.values()) {
          List<Member> merged = bruteForce(sims, order);
          long[] expected = new long[k];
          for (int r = 0; r <= merged.size(); r++) {
            assertThat("round " + round + " rank " + r + " " + order, s.before(r, order), equalTo(expected));
            if (r < merged.size()) {
              expected[merged.get(r).group()]++;
            }
            checked++;
          }
        }
      }
    }
    assertThat(checked, greaterThan(5_000L));
  }

  @Test
  void eachGroupsQueryFromItsStartReturnsItsShareOfTheMergedPage() throws Exception {
    Random rnd = new Random(SEED + 1);
    long pages = 0;
    long maxReadsPerGroup = 0;
    long overBound = 0;
    for (int round = 0; round < 40; round++) {
      int k = 2 + rnd.nextInt(KEYS.size() - 1);
      List<SimulatedGroup> sims = randomUnion(rnd, k);
      boolean empty = round % 5 == 0;
      if (empty) {
        sims.set(0, SimulatedGroup.random(new Random(round), sims.get(0).group(), 1));
      }
      List<ListGroup> lists = new ArrayList<>();
      try (UnionPages u = union(sims, lists, empty)) {
        // two selections, each at most floor(log2 n) + 1 reads a group, then at most 3 reads for each start key
        long bound = 0;
        for (GroupPages g : u.groupPages()) {
          bound += g.count() == 0 ? 0 : 2 * (63 - Long.numberOfLeadingZeros(g.count()) + 1) + 3;
        }
        List<SimulatedGroup> held = new ArrayList<>(sims);
        for (int pageSize : new int[] {1, 3, 20}) {
          for (Order order : Order.values()) {
            List<Member> merged = bruteForce(empty ? held.subList(1, k) : held, order);
            int shift = empty ? 1 : 0;
            long count = merged.size();
            assertThat(u.count(), equalTo(count));
            assertThat(u.pages(pageSize), equalTo((count + pageSize - 1) / pageSize));
            for (long p = 1; p <= u.pages(pageSize); p++) {
              lists.forEach(ListGroup::takeReads);
              UnionPageStart start = u.pageStart(p, pageSize, order);
              long reads = lists.stream().mapToLong(ListGroup::takeReads).sum();
              assertThat("round " + round + " page " + p + " reads", start.recordReads(), equalTo(reads));
              maxReadsPerGroup = Math.max(maxReadsPerGroup, reads / k);
              if (reads > bound) {
                overBound++;
              }
              List<Member> page =
                  merged.subList((int) ((p - 1) * pageSize), (int) Math.min(count, p * pageSize));
              for (int g = 0; g < k; g++) {
                UnionPageStart.GroupStart gs = start.starts().get(g);
                List<SimulatedGroup.Item> want = new ArrayList<>();
                List<SimulatedGroup.Item> walk = held.get(g).readOrder(order);
                for (Member m : page) {
                  if (m.group() + shift == g) {
                    want.add(walk.get(m.position()));
                  }
                }
                String why = "round " + round + " page " + p + " of " + pageSize + " " + order + " group " + g;
                assertThat(why, gs.take(), equalTo((long) want.size()));
                if (gs.take() > 0) {
                  List<SimulatedGroup.Item> rest = held.get(g).query(gs.exclusiveStartKey(), order);
                  assertThat(why, rest.subList((int) gs.skip(), (int) (gs.skip() + gs.take())), equalTo(want));
                }
              }
              pages++;
            }
          }
        }
      }
    }
    assertThat(pages, greaterThan(1_000L));
    assertThat("page starts over the read bound", overBound, equalTo(0L));
    assertThat(maxReadsPerGroup, lessThanOrEqualTo(40L));
  }

  @Test
  void aPagePastTheEndIsOutOfRange() throws Exception {
    List<SimulatedGroup> sims = randomUnion(new Random(SEED), 2);
    try (UnionPages u = union(sims, new ArrayList<>(), false)) {
      long pages = u.pages(7);
      PageOutOfRangeException e =
          assertThrows(PageOutOfRangeException.class, () -> u.pageStart(pages + 1, 7, Order.ASC));
      assertThat(e.getMessage(), org.hamcrest.Matchers.containsString("page " + (pages + 1) + " is out of range"));
      assertThrows(PageOutOfRangeException.class, () -> u.pageStart(0, 7, Order.DESC));
    }
  }
}
