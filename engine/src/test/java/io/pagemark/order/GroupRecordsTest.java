package io.pagemark.order;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.ListGroup;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.lookup.SimulatedGroup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link GroupRecords}: how a group's sorted entries become records, with fake and simulated tie orders. */
class GroupRecordsTest {
  static final KeyValue GROUP = KeyValue.ofString("g");

  static IndexEntry entry(String sortKey, String pk) {
    return new IndexEntry(GROUP, List.of(KeyValue.ofNumber(sortKey), KeyValue.ofString(pk)));
  }

  /** A tie order that answers fixed orders and remembers what it was asked. */
  static final class FakeTieOrder implements TieOrder {
    final int[] ascending;
    final int[] descending;
    final List<String> calls = new ArrayList<>();

    FakeTieOrder(int[] ascending, int[] descending) {
      this.ascending = ascending;
      this.descending = descending;
    }

    @Override
    public Resolved resolve(KeyValue group, KeyValue sortKey, List<IndexEntry> run) {
      List<String> pks = new ArrayList<>();
      run.forEach(e -> pks.add(e.keys().get(1).text()));
      calls.add(group.text() + " " + sortKey.text() + " " + pks);
      return ascending == null ? null : new Resolved(ascending, descending);
    }
  }

  static List<IndexRecord> records(TieOrder ties, List<IndexEntry> entries, long[] counts) throws IOException {
    List<IndexRecord> out = new ArrayList<>();
    GroupRecords g = new GroupRecords(ties, out::add);
    for (IndexEntry e : entries) {
      g.add(e);
    }
    g.finish();
    counts[0] = g.count();
    counts[1] = g.tieRuns();
    counts[2] = g.unresolvedRuns();
    return out;
  }

  static final List<IndexEntry> ENTRIES = List.of(
      entry("1", "a"), entry("2", "b"), entry("2.0", "c"), entry("20E-1", "d"), entry("3", "e"));

  @Test
  void aResolvedRunIsStoredInDynamoDbsAscendingOrderWithItsDescendingSlots() throws IOException {
    // DynamoDB reads the run (b, c, d) ascending as d, b, c and descending as c, d, b
    FakeTieOrder ties = new FakeTieOrder(new int[] {2, 0, 1}, new int[] {1, 2, 0});
    long[] counts = new long[3];
    List<IndexRecord> records = records(ties, ENTRIES, counts);

    assertThat(ties.calls, equalTo(List.of("g 2 [b, c, d]")));
    assertThat(records, equalTo(List.of(
        IndexRecord.unique(ENTRIES.get(0).keys()),
        // descending slot k: the run position of the entry read k-th descending (c at 2, d at 0, b at 1)
        new IndexRecord(0, 3, true, 2, ENTRIES.get(3).keys()),
        new IndexRecord(1, 3, true, 0, ENTRIES.get(1).keys()),
        new IndexRecord(2, 3, true, 1, ENTRIES.get(2).keys()),
        IndexRecord.unique(ENTRIES.get(4).keys()))));
    assertThat(counts, equalTo(new long[] {5, 1, 0}));
  }

  @Test
  void anUnresolvedRunKeepsTheIndexOrderAndIsFlagged() throws IOException {
    FakeTieOrder ties = new FakeTieOrder(null, null);
    long[] counts = new long[3];
    List<IndexRecord> records = records(ties, ENTRIES, counts);
    assertThat(records, equalTo(List.of(
        IndexRecord.unique(ENTRIES.get(0).keys()),
        new IndexRecord(0, 3, false, 2, ENTRIES.get(1).keys()),
        new IndexRecord(1, 3, false, 1, ENTRIES.get(2).keys()),
        new IndexRecord(2, 3, false, 0, ENTRIES.get(3).keys()),
        IndexRecord.unique(ENTRIES.get(4).keys()))));
    assertThat(counts, equalTo(new long[] {5, 1, 1}));
    assertThat(records(TieOrder.UNKNOWN, ENTRIES, counts), equalTo(records));
  }

  @Test
  void uniqueSortKeysNeverAskTheTieOrder() throws IOException {
    FakeTieOrder ties = new FakeTieOrder(null, null);
    long[] counts = new long[3];
    List<IndexRecord> records = records(ties, List.of(entry("1", "a"), entry("2", "a"), entry("3", "a")), counts);
    assertThat(ties.calls, equalTo(List.of()));
    assertThat(records.size(), equalTo(3));
    assertThat(counts, equalTo(new long[] {3, 0, 0}));
  }

  @Test
  void entriesOutOfOrderAreRejected() throws IOException {
    GroupRecords g = new GroupRecords(TieOrder.UNKNOWN, r -> {});
    g.add(entry("2", "b"));
    IllegalStateException bySortKey = assertThrows(IllegalStateException.class, () -> g.add(entry("1", "z")));
    assertThat(bySortKey.getMessage(), containsString("entries out of order"));

    GroupRecords h = new GroupRecords(TieOrder.UNKNOWN, r -> {});
    h.add(entry("2", "b"));
    assertThrows(IllegalStateException.class, () -> h.add(entry("2.0", "a"))); // equal sort keys: by table key
  }

  /** Records built with DynamoDB's orders as a tie order learns them page exactly like DynamoDB's cursor. */
  @Test
  void recordsFromSimulatedDynamoDbOrdersPageLikeDynamoDb() throws Exception {
    Random rnd = new Random(4242);
    for (int g = 0; g < 60; g++) {
      SimulatedGroup sim = SimulatedGroup.random(rnd, GROUP, 50);
      TieOrder learned = (group, sortKey, run) -> {
        int[][] orders = sim.tieOrders(run);
        return new TieOrder.Resolved(orders[0], orders[1]);
      };
      long[] counts = new long[3];
      List<IndexRecord> resolved = records(learned, sim.entries(), counts);
      assertThat(resolved, equalTo(sim.records(r -> true)));
      assertThat(counts[2], equalTo(0L));
      assertThat(records(TieOrder.UNKNOWN, sim.entries(), counts), equalTo(sim.records(r -> false)));

      ListGroup group = new ListGroup(GROUP, SimulatedGroup.GROUP_ATTRIBUTE, SimulatedGroup.ATTRIBUTES, resolved);
      try (GroupPages pages = new GroupPages(group)) {
        for (int pageSize = 1; pageSize <= 10; pageSize++) {
          for (Order order : Order.values()) {
            List<List<SimulatedGroup.Item>> walk = sim.walk(pageSize, order);
            for (int p = 1; p <= walk.size(); p++) {
              PageStart start = pages.pageStart(p, pageSize, order);
              List<SimulatedGroup.Item> rest = sim.query(start.exclusiveStartKey(), order);
              assertThat(start.skip(), equalTo(0L));
              assertThat(rest.subList(0, Math.min(pageSize, rest.size())), equalTo(walk.get(p - 1)));
            }
          }
        }
      }
    }
  }
}
