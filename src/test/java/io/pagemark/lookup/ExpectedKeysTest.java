package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The keys {@link GroupPages} expects at each position of a read, on a group with a run of equal sort keys that
 * DynamoDB reads in an order other than the reverse of its ascending one, as the format allows.
 */
class ExpectedKeysTest {
  /** Group "g": x (t1), then a, b, c all at t2, then y (t3). Descending, DynamoDB returns the run as b, c, a. */
  private static GroupPages group(boolean runOrderKnown) {
    List<IndexRecord> records = new ArrayList<>();
    records.add(IndexRecord.unique(keys("t1", "x")));
    int[] descendingSlot = {1, 2, 0};
    String[] run = {"a", "b", "c"};
    for (int k = 0; k < 3; k++) {
      records.add(new IndexRecord(k, 3, runOrderKnown, descendingSlot[k], keys("t2", run[k])));
    }
    records.add(IndexRecord.unique(keys("t3", "y")));
    return new GroupPages(new ListGroup(records));
  }

  private static List<KeyValue> keys(String sortKey, String pk) {
    return List.of(KeyValue.ofString(sortKey), KeyValue.ofString(pk));
  }

  private static List<String> read(GroupPages g, Order order) throws Exception {
    List<String> pks = new ArrayList<>();
    for (long q = 0; q < g.count(); q++) {
      GroupPages.Expected e = g.expectedAt(q, order);
      pks.add(e.key().get("PK").text() + (e.exact() ? "" : "?"));
    }
    return pks;
  }

  @Test
  void aKnownRunIsExpectedInDynamoDbsOrderBothWays() throws Exception {
    GroupPages g = group(true);
    assertThat(read(g, Order.ASC), equalTo(List.of("x", "a", "b", "c", "y")));
    assertThat(read(g, Order.DESC), equalTo(List.of("y", "b", "c", "a", "x")));
  }

  @Test
  void theExpectedKeyBeforeAPageIsThatPagesExclusiveStartKey() throws Exception {
    GroupPages g = group(true);
    for (Order order : Order.values()) {
      for (long q = 0; q + 1 < g.count(); q++) {
        PageStart next = g.pageStart(q + 2, 1, order);
        assertThat(order + " " + q, next.skip(), is(0L));
        assertThat(order + " " + q, next.exclusiveStartKey(), equalTo(g.expectedAt(q, order).key()));
      }
    }
  }

  @Test
  void anUnknownRunIsExpectedBySortKeyOnly() throws Exception {
    GroupPages g = group(false);
    for (Order order : Order.values()) {
      List<String> read = read(g, order);
      assertThat(read.get(0) + read.get(4), equalTo(order == Order.ASC ? "xy" : "yx"));
      for (long q = 1; q <= 3; q++) {
        assertThat(read.get((int) q).endsWith("?"), is(true));
        assertThat(g.expectedAt(q, order).key().get("SK").text(), equalTo("t2"));
      }
    }
  }

  /** A group held in a list. */
  private record ListGroup(List<IndexRecord> records) implements RankedGroup {
    @Override
    public KeyValue group() {
      return KeyValue.ofString("g");
    }

    @Override
    public String groupAttribute() {
      return "PK2";
    }

    @Override
    public List<KeyAttribute> attributes() {
      return List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
          new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));
    }

    @Override
    public String buildId() {
      return "test";
    }

    @Override
    public long count() {
      return records.size();
    }

    @Override
    public IndexRecord record(long rank) {
      return records.get((int) rank);
    }

    @Override
    public void close() {}
  }
}
