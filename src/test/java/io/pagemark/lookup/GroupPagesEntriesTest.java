package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupPages#entries} and {@link GroupPages#positionOf} over ranked records, against a simulated DynamoDB whose
 * reads of runs of equal sort keys are not the reverse of each other: every entry a read in either order returns, in
 * blocks of any size, with its ascending rank, and every entry's position in both orders.
 */
class GroupPagesEntriesTest {
  static final KeyValue GROUP = KeyValue.ofString("SKU-1");

  @Test
  void entriesAndPositionsFollowDynamoDbsOrdersTiesIncluded() throws Exception {
    Random rnd = new Random(20);
    long notReversed = 0;
    for (int g = 0; g < 40; g++) {
      SimulatedGroup sim = SimulatedGroup.random(rnd, GROUP, 60);
      List<IndexRecord> records = sim.records(i -> true);
      List<SimulatedGroup.Item> ascending = sim.readOrder(Order.ASC);
      try (GroupPages pages = new GroupPages(
          new ListGroup(GROUP, SimulatedGroup.GROUP_ATTRIBUTE, SimulatedGroup.ATTRIBUTES, records))) {
        for (Order order : Order.values()) {
          List<SimulatedGroup.Item> read = sim.readOrder(order);
          int block = 1 + rnd.nextInt(7);
          List<GroupPages.Entry> got = new ArrayList<>();
          for (int from = 0; from < read.size(); from += block) {
            got.addAll(pages.entries(from, block, order));
          }
          String why = "group " + g + " (" + sim.size() + " items, " + sim.runs() + " runs) " + order;
          assertThat(why, got.size(), is(read.size()));
          for (int q = 0; q < read.size(); q++) {
            SimulatedGroup.Item it = read.get(q);
            assertThat(why + " position " + q, got.get(q).key(), equalTo(sim.keyOf(it)));
            assertThat(why + " rank at " + q, got.get(q).rank(), is((long) ascending.indexOf(it)));
            List<KeyValue> stored = List.of(it.sortKey(), it.pk());
            assertThat(why + " position of " + it, pages.positionOf(stored, order), is((long) q));
            if (order == Order.DESC && ascending.indexOf(it) != read.size() - 1 - q) {
              notReversed++;
            }
          }
        }
        assertThat(pages.entries(sim.size(), 3, Order.ASC).size(), is(0));
        assertThat(pages.positionOf(List.of(KeyValue.ofNumber("-1"), KeyValue.ofString("none")), Order.ASC),
            is(-1L));
      }
    }
    assertThat("runs whose descending read is not the ascending one reversed", notReversed, greaterThan(0L));
  }
}
