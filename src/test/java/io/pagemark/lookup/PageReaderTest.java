package io.pagemark.lookup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * {@link PageReader} on a simulated GSI: a group its store republishes while a page is read (as Redis may) is opened
 * again and the page read again, the retry counted; a group republished under every read fails after
 * {@link PageReader#REPUBLISHED_ATTEMPTS} attempts; arguments are checked.
 */
class PageReaderTest {
  static final KeyValue GROUP = KeyValue.ofString("SKU-1");
  static final String TABLE = "comments";
  static final String GSI = "byProduct";

  final SimulatedGroup sim = SimulatedGroup.random(new Random(11), GROUP, 200);
  final List<IndexRecord> records = sim.records(run -> true);
  final SimulatedQueries dynamo = new SimulatedQueries(TABLE, GSI, sim);

  /** A group of one build whose store republishes it when {@code republished} says so (checked on every read). */
  final class RepublishingGroup implements RankedGroup {
    private final String buildId;
    private final BooleanSupplier republished;

    RepublishingGroup(String buildId, BooleanSupplier republished) {
      this.buildId = buildId;
      this.republished = republished;
    }

    @Override
    public KeyValue group() {
      return GROUP;
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
      return buildId;
    }

    @Override
    public long count() {
      return records.size();
    }

    @Override
    public IndexRecord record(long rank) throws GroupRepublishedException {
      if (republished.getAsBoolean()) {
        throw new GroupRepublishedException("group " + GROUP + " changed from build " + buildId + " while read");
      }
      return records.get((int) rank);
    }

    @Override
    public void close() {}
  }

  /** An index whose n-th opening of the group (from 1) is {@code openings.apply(n)}. */
  static final class ScriptedIndex implements Index {
    private final IntFunction<RankedGroup> openings;
    int opened;

    ScriptedIndex(IntFunction<RankedGroup> openings) {
      this.openings = openings;
    }

    @Override
    public String buildId() {
      return "b1";
    }

    @Override
    public KeyType groupType() {
      return KeyType.S;
    }

    @Override
    public GroupPages group(KeyValue key) throws GroupNotFoundException {
      if (!key.equals(GROUP)) {
        throw new GroupNotFoundException("group " + key + " is not in the index");
      }
      RankedGroup g = openings.apply(++opened);
      if (g == null) {
        throw new GroupNotFoundException("group " + key + " was removed");
      }
      return new GroupPages(g);
    }

    @Override
    public String groupAttribute() {
      return SimulatedGroup.GROUP_ATTRIBUTE;
    }

    @Override
    public String sortAttribute() {
      return SimulatedGroup.ATTRIBUTES.get(0).name();
    }

    @Override
    public List<KeyValue> groups() {
      return List.of(GROUP);
    }

    @Override
    public void close() {}
  }

  List<Map<String, AttributeValue>> walkPage(int page, int pageSize, Order order) {
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    sim.walk(pageSize, order).get(page - 1).forEach(it -> items.add(dynamo.item(it)));
    return items;
  }

  @Test
  void aPageFromAStartKeyBoundsTheSortKeyByTheStartKeysOwnAndIsStillDynamoDbsPage() throws Exception {
    ScriptedIndex index = new ScriptedIndex(n -> new RepublishingGroup("b1", () -> false));
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(dynamo, TABLE, GSI, index);
    int pageSize = 6;
    int bounded = 0;
    for (Order order : Order.values()) {
      int pages = sim.walk(pageSize, order).size();
      for (int p = 1; p <= pages; p++) {
        ItemPage<Map<String, AttributeValue>> page = reader.read(GROUP, p, pageSize, order);
        assertThat(order + " page " + p, page.items(), equalTo(walkPage(p, pageSize, order)));
        QueryRequest q = dynamo.lastRequest();
        if (!q.hasExclusiveStartKey()) {
          assertThat(q.keyConditionExpression(), equalTo("#g = :g"));
        } else {
          bounded++;
          String sort = SimulatedGroup.ATTRIBUTES.get(0).name();
          assertThat(q.keyConditionExpression(),
              equalTo(order == Order.ASC ? "#g = :g AND #s >= :s" : "#g = :g AND #s <= :s"));
          assertThat(q.expressionAttributeNames().get("#s"), equalTo(sort));
          assertThat(q.expressionAttributeValues().get(":s"), equalTo(q.exclusiveStartKey().get(sort)));
        }
      }
    }
    assertThat("pages read from a start key, for this test to mean anything", bounded, greaterThan(20));
  }

  @Test
  void aGroupRepublishedBeforeTheQueryIsOpenedAgainAndEveryPageIsStillDynamoDbsPage() throws Exception {
    ScriptedIndex index = new ScriptedIndex(n -> n == 1 ? new RepublishingGroup("b1", () -> true)
        : new RepublishingGroup("b2", () -> false));
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(dynamo, TABLE, GSI, index);
    int pageSize = 7;
    int read = 0;
    for (Order order : Order.values()) {
      // the last page first: its start is read from the group (page 1's is not), so the republish shows there
      for (int p = sim.walk(pageSize, order).size(); p >= 1; p--) {
        ItemPage<Map<String, AttributeValue>> page = reader.read(GROUP, p, pageSize, order);
        assertThat(order + " page " + p, page.items(), equalTo(walkPage(p, pageSize, order)));
        assertThat(page.buildId(), equalTo("b2"));
        assertThat(page.stale(), is(false));
        assertThat(page.requests(), is(1));
        read++;
      }
    }
    assertThat("a group of several pages, for this test to mean anything", read, greaterThan(10));
    assertThat(index.opened, is(read + 1));
    assertThat(reader.metrics().republishedRetries(), is(1L));
    assertThat(reader.metrics().pages(), is((long) read));
    assertThat("the first attempt failed before its Query", reader.metrics().queryRequests(), is((long) read));
    assertThat(dynamo.queries(), is(read));
  }

  @Test
  void aGroupRepublishedWhileItsPageIsComparedIsReadAgainAndBothQueriesAreCounted() throws Exception {
    int[] queriesAtOpen = new int[1];
    ScriptedIndex index = new ScriptedIndex(n -> {
      if (n == 1) {
        queriesAtOpen[0] = dynamo.queries();
        return new RepublishingGroup("b1", () -> dynamo.queries() > queriesAtOpen[0]);
      }
      return new RepublishingGroup("b2", () -> false);
    });
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(dynamo, TABLE, GSI, index);
    ItemPage<Map<String, AttributeValue>> page = reader.read("SKU-1", 2, 5, Order.DESC);
    assertThat(page.items(), equalTo(walkPage(2, 5, Order.DESC)));
    assertThat(page.buildId(), equalTo("b2"));
    assertThat(page.requests(), is(2));
    assertThat(page.consumedReadCapacity(), is(2 * SimulatedQueries.CAPACITY_PER_QUERY));
    assertThat(index.opened, is(2));
    assertThat(reader.metrics().republishedRetries(), is(1L));
    assertThat(reader.metrics().queryRequests(), is(2L));
    assertThat(reader.metrics().pages(), is(1L));
  }

  @Test
  void aGroupRepublishedUnderEveryReadFailsAfterTheLastAttempt() {
    ScriptedIndex index = new ScriptedIndex(n -> new RepublishingGroup("b" + n, () -> true));
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(dynamo, TABLE, GSI, index);
    GroupRepublishedException e =
        assertThrows(GroupRepublishedException.class, () -> reader.read(GROUP, 1, 5, Order.ASC));
    assertThat(e.getMessage(), containsString("changed from build b" + PageReader.REPUBLISHED_ATTEMPTS));
    assertThat(index.opened, is(PageReader.REPUBLISHED_ATTEMPTS));
    assertThat(reader.metrics().republishedRetries(), is((long) PageReader.REPUBLISHED_ATTEMPTS - 1));
    assertThat(reader.metrics().pages(), is(0L));
  }

  @Test
  void aGroupRemovedByTheRepublishIsNotFound() {
    ScriptedIndex index = new ScriptedIndex(n -> n == 1 ? new RepublishingGroup("b1", () -> true) : null);
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(dynamo, TABLE, GSI, index);
    assertThrows(GroupNotFoundException.class, () -> reader.read(GROUP, 1, 5, Order.ASC));
    assertThat(reader.metrics().republishedRetries(), is(1L));
  }

  @Test
  void nullArgumentsAreRefusedByName() {
    Index index = new ScriptedIndex(n -> new RepublishingGroup("b1", () -> false));
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(dynamo, TABLE, GSI, index);
    assertNullRefused("client", () -> PageReader.of((DynamoDbClient) null, TABLE, GSI, index));
    assertNullRefused("table", () -> PageReader.of(dynamo, (String) null, GSI, index));
    assertNullRefused("gsi", () -> PageReader.of(dynamo, TABLE, (String) null, index));
    assertNullRefused("index", () -> PageReader.of(dynamo, TABLE, GSI, null));
    assertNullRefused("index", () -> PageReader.of(dynamo, TABLE, (Index) null));
    assertNullRefused("metrics", () -> reader.withMetrics(null));
    assertNullRefused("group", () -> reader.read((String) null, 1, 5, Order.ASC));
    assertNullRefused("group", () -> reader.read((KeyValue) null, 1, 5, Order.ASC));
    assertNullRefused("order", () -> reader.read(GROUP, 1, 5, null));
    assertNullRefused("order", () -> reader.read("SKU-1", 1, 5, null));
  }

  static void assertNullRefused(String name, Executable call) {
    NullPointerException e = assertThrows(NullPointerException.class, call);
    assertThat(e.getMessage(), equalTo(name));
  }

  @Test
  void aReaderOnTheTablesOwnKeysQueriesTheTableItself() throws Exception {
    Index index = new ScriptedIndex(n -> new RepublishingGroup("b1", () -> false));
    SimulatedQueries onTable = new SimulatedQueries(TABLE, null, sim);
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(onTable, TABLE, index);
    assertThat(reader.read(GROUP, 1, 3, Order.ASC).items(), equalTo(walkPage(1, 3, Order.ASC)));
    assertThat(onTable.queries(), is(1));
  }
}
