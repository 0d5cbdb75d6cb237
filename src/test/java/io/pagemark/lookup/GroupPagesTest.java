package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;
import java.util.Random;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupPages} against a simulated DynamoDB: for random groups, every page size from 1 to 10 and both orders,
 * a Query from the page's exclusive start key, dropping {@code skip} items and taking {@code pageSize}, returns
 * exactly the page that DynamoDB's own cursor walk returns; whether the order of equal sort keys was learned at build
 * time (resolved runs), not learned (unknown runs), or a mix.
 */
class GroupPagesTest {
  static final long SEED = 292L;
  static final KeyValue GROUP = KeyValue.ofString("SKU-1");

  /** What a check exercised, so that a test cannot pass by checking nothing. */
  static final class Coverage {
    long pages;
    long boundariesInsideKnownRuns;
    long pagesWithSkip;
  }

  Coverage checkRandomGroups(int groups, IntPredicate... knownRuns) throws Exception {
    Random rnd = new Random(SEED);
    Coverage c = new Coverage();
    for (int g = 0; g < groups; g++) {
      SimulatedGroup sim = SimulatedGroup.random(rnd, GROUP, 60);
      IntPredicate known = knownRuns[g % knownRuns.length];
      List<IndexRecord> records = sim.records(known);
      boolean allKnown = records.stream().allMatch(IndexRecord::runOrderKnown);
      long unknownRuns = records.stream().filter(r -> !r.runOrderKnown() && r.tiePosition() == 0).count();
      ListGroup group = new ListGroup(GROUP, SimulatedGroup.GROUP_ATTRIBUTE, SimulatedGroup.ATTRIBUTES, records);
      try (GroupPages pages = new GroupPages(group)) {
        assertThat(pages.count(), equalTo((long) sim.size()));
        for (int pageSize = 1; pageSize <= 10; pageSize++) {
          for (Order order : Order.values()) {
            List<List<SimulatedGroup.Item>> walk = sim.walk(pageSize, order);
            assertThat(pages.pages(pageSize), equalTo((long) walk.size()));
            for (int p = 1; p <= walk.size(); p++) {
              group.takeReads();
              PageStart start = pages.pageStart(p, pageSize, order);
              int reads = group.takeReads();
              List<SimulatedGroup.Item> rest = sim.query(start.exclusiveStartKey(), order);
              int from = (int) Math.min(start.skip(), rest.size());
              List<SimulatedGroup.Item> got = rest.subList(from, Math.min(rest.size(), from + pageSize));
              String why = "group " + g + " (" + sim.size() + " items, " + sim.runs() + " runs), page " + p
                  + " of " + pageSize + " " + order + ": " + start;
              assertThat(why, got, equalTo(walk.get(p - 1)));
              assertThat(why, start.page(), equalTo((long) p));
              assertThat(why, start.pageSize(), equalTo(pageSize));
              assertThat(why, start.order(), equalTo(order));
              assertThat(why, start.count(), equalTo((long) sim.size()));
              assertThat(why, start.pages(), equalTo((long) walk.size()));
              if (p == 1) {
                assertThat(why, start.exclusiveStartKey(), nullValue());
              }
              // a page start reads at most three records, plus one per run of unknown order it steps back over
              assertThat("record reads for " + why, (long) reads, lessThanOrEqualTo(3 + unknownRuns));
              if (allKnown) {
                assertThat(why, start.skip(), equalTo(0L));
              }
              c.pages++;
              if (start.skip() > 0) {
                c.pagesWithSkip++;
              }
              if (p > 1) {
                IndexRecord last = lastOfPreviousPage(records, p, pageSize, order);
                if (last.runOrderKnown() && last.runLength() > 1 && !endsRun(last, order)) {
                  c.boundariesInsideKnownRuns++;
                }
              }
            }
          }
        }
      }
    }
    return c;
  }

  /** The record of the run holding the item read just before page {@code p} (its position is what matters). */
  static IndexRecord lastOfPreviousPage(List<IndexRecord> records, int p, int pageSize, Order order) {
    int q = (p - 1) * pageSize - 1;
    return records.get(order == Order.ASC ? q : records.size() - 1 - q);
  }

  static boolean endsRun(IndexRecord r, Order order) {
    return order == Order.ASC ? r.tiePosition() == r.runLength() - 1 : r.tiePosition() == 0;
  }

  @Test
  void resolvedRunsGivePagesWithoutSkipping() throws Exception {
    Coverage c = checkRandomGroups(100, r -> true);
    assertThat(c.boundariesInsideKnownRuns, greaterThan(1_000L));
    assertThat(c.pagesWithSkip, equalTo(0L));
  }

  @Test
  void unknownRunsAreSteppedAround() throws Exception {
    Coverage c = checkRandomGroups(100, r -> false);
    assertThat(c.pagesWithSkip, greaterThan(1_000L));
  }

  @Test
  void mixedRuns() throws Exception {
    Coverage c = checkRandomGroups(100, r -> r % 2 == 0, r -> r % 3 != 0, r -> (r * 2654435761L & 4) == 0);
    assertThat(c.pagesWithSkip, greaterThan(500L));
    assertThat(c.boundariesInsideKnownRuns, greaterThan(500L));
  }

  ListGroup simpleGroup(int n) {
    SimulatedGroup sim = SimulatedGroup.random(new Random(n), GROUP, 1);
    List<IndexRecord> one = sim.records(r -> true);
    List<IndexRecord> records = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      records.add(IndexRecord.unique(List.of(KeyValue.ofNumber("" + i), one.get(0).keys().get(1))));
    }
    return new ListGroup(GROUP, "PK2", SimulatedGroup.ATTRIBUTES, records);
  }

  @Test
  void pagesOutOfRange() throws IOException {
    try (GroupPages pages = new GroupPages(simpleGroup(25))) {
      assertThat(pages.pages(10), equalTo(3L));
      PageOutOfRangeException zero =
          assertThrows(PageOutOfRangeException.class, () -> pages.pageStart(0, 10, Order.ASC));
      assertThat(zero.getMessage(), equalTo("group {\"S\":\"SKU-1\"} has 3 pages of 10; page 0 is out of range"));
      PageOutOfRangeException four =
          assertThrows(PageOutOfRangeException.class, () -> pages.pageStart(4, 10, Order.DESC));
      assertThat(four.getMessage(), equalTo("group {\"S\":\"SKU-1\"} has 3 pages of 10; page 4 is out of range"));
      assertThrows(PageOutOfRangeException.class, () -> pages.pageStart(-1, 10, Order.ASC));
      assertThrows(PageOutOfRangeException.class, () -> pages.pageStart(Long.MAX_VALUE, 1, Order.ASC));
      assertThat(assertThrows(PageOutOfRangeException.class, () -> pages.pageStart(2, 25, Order.ASC)).getMessage(),
          containsString("has 1 page of 25; page 2"));
    }
  }

  @Test
  void pageSizeBelowOne() throws IOException {
    try (GroupPages pages = new GroupPages(simpleGroup(5))) {
      for (int size : new int[] {0, -1, Integer.MIN_VALUE}) {
        IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> pages.pageStart(1, size, Order.ASC));
        assertThat(e.getMessage(), equalTo("page size must be at least 1, not " + size));
        assertThrows(IllegalArgumentException.class, () -> pages.pages(size));
      }
    }
  }

  @Test
  void lastPageAndKeyAt() throws Exception {
    try (GroupPages pages = new GroupPages(simpleGroup(25))) {
      PageStart last = pages.pageStart(3, 10, Order.ASC);
      assertThat(last.exclusiveStartKey().get("SK2"), equalTo(KeyValue.ofNumber("19")));
      assertThat(pages.keyAt(19), equalTo(last.exclusiveStartKey()));
      assertThat(List.copyOf(pages.keyAt(0).keySet()), equalTo(List.of("PK2", "SK2", "PK")));
      PageStart lastDesc = pages.pageStart(3, 10, Order.DESC);
      assertThat(lastDesc.exclusiveStartKey().get("SK2"), equalTo(KeyValue.ofNumber("5")));
      assertThat(pages.pageStart(1, 1_000_000, Order.DESC).pages(), equalTo(1L));
    }
  }
}
