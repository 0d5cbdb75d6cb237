package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.lessThan;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What placing a deep page of a union costs in record reads, on groups shaped like the benchmark's ratings (20,100
 * comments over about 1,035 days, shares 50/25/13/8/4 %, sort keys by day, so runs of equal sort keys inside and across
 * groups): every record the page start reads, the selection's and each group's start key's, counted by the groups
 * themselves. The goal of issue 15 is under 40 a group.
 */
class UnionSelectionReadsTest {
  static final double[] SHARES = {0.50, 0.25, 0.13, 0.08, 0.04};

  /** Ratings 5 down to 1 as groups of records, each run of one day's comments a run of equal sort keys. */
  static List<List<IndexRecord>> ratings(long seed, int comments, int days) {
    Random r = new Random(seed);
    List<List<Integer>> byRating = new ArrayList<>();
    for (int g = 0; g < SHARES.length; g++) {
      byRating.add(new ArrayList<>());
    }
    int bulk = -1;
    for (int i = 0; i < comments; i++) {
      int day = bulk >= 0 && r.nextInt(4) != 0 ? bulk : r.nextInt(days);
      bulk = r.nextInt(200) == 0 ? day : bulk == day ? bulk : -1;
      double u = r.nextDouble();
      int g = 0;
      for (double acc = SHARES[0]; u > acc && g < SHARES.length - 1; acc += SHARES[++g]) {
        // the rating whose share u falls in
      }
      byRating.get(g).add(day);
    }
    List<List<IndexRecord>> groups = new ArrayList<>();
    for (List<Integer> daysOf : byRating) {
      daysOf.sort(null);
      List<IndexRecord> records = new ArrayList<>();
      for (int i = 0; i < daysOf.size(); ) {
        int j = i;
        while (j < daysOf.size() && daysOf.get(j).equals(daysOf.get(i))) {
          j++;
        }
        for (int t = i; t < j; t++) {
          records.add(new IndexRecord(t - i, j - i, true, j - 1 - t,
              List.of(KeyValue.ofNumber("" + daysOf.get(t)), KeyValue.ofString("comment-" + records.size()))));
        }
        i = j;
      }
      groups.add(records);
    }
    return groups;
  }

  static long[] readsPerPage(List<List<IndexRecord>> ratings, int k, long[] pages, int size, Order order)
      throws Exception {
    List<ListGroup> lists = new ArrayList<>();
    List<GroupPages> opened = new ArrayList<>();
    for (int g = 0; g < k; g++) {
      ListGroup list = new ListGroup(KeyValue.ofString("PRODUCT#42/" + (5 - g)), SimulatedGroup.GROUP_ATTRIBUTE,
          SimulatedGroup.ATTRIBUTES, ratings.get(g));
      lists.add(list);
      opened.add(new GroupPages(list));
    }
    long[] reads = new long[pages.length];
    try (UnionPages u = UnionPages.of(opened)) {
      for (int i = 0; i < pages.length; i++) {
        lists.forEach(ListGroup::takeReads);
        u.pageStart(pages[i], size, order);
        reads[i] = lists.stream().mapToLong(ListGroup::takeReads).sum();
      }
    }
    return reads;
  }

  @Test
  void page500OfBenchShapedUnionsReadsUnderFortyRecordsAGroup() throws Exception {
    List<List<IndexRecord>> ratings = ratings(15, 20_100, 1_035);
    for (int k : new int[] {2, 5}) {
      for (Order order : Order.values()) {
        long reads = readsPerPage(ratings, k, new long[] {500}, 20, order)[0];
        assertThat("union of " + k + " " + order, reads, lessThan(40L * k));
      }
    }
  }

  @Test
  void everyDeepPageOfBenchShapedUnionsReadsUnderFortyRecordsAGroup() throws Exception {
    List<List<IndexRecord>> ratings = ratings(16, 20_100, 1_035);
    Random rnd = new Random(17);
    for (int k : new int[] {2, 3, 5}) {
      long total = 0;
      for (int g = 0; g < k; g++) {
        total += ratings.get(g).size();
      }
      long[] pages = new long[200];
      for (int i = 0; i < pages.length; i++) {
        pages[i] = 1 + (long) (rnd.nextDouble() * ((total + 19) / 20));
      }
      for (Order order : Order.values()) {
        long[] reads = readsPerPage(ratings, k, pages, 20, order);
        long max = 0;
        long sum = 0;
        for (long r : reads) {
          max = Math.max(max, r);
          sum += r;
        }
        assertThat("union of " + k + " " + order, max, lessThan(40L * k));
      }
    }
  }
}
