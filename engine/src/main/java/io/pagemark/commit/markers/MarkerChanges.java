package io.pagemark.commit.markers;

import io.pagemark.change.IndexChange;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.StatsItems;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.Update;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * Keeps a group's markers and STATS item current after changes the table already holds (from its change stream).
 * The common change, a new newest item, is one transaction: the STATS item's count and version, and a marker on the
 * new item when it completes a page. Any other change (a delete, a sort key moved, an insert in the middle) moves
 * every later marker: the group is read again from DynamoDB ({@link GroupWalk}) and the markers that differ are
 * rewritten in transactions of at most {@value #MAX_ACTIONS} actions, the STATS item in the last one. A transaction
 * that DynamoDB cancels (a conflict with another writer, an item changed under it) is retried from a new read, up to
 * {@value #ATTEMPTS} times. Applying the same changes again writes nothing.
 *
 * <p>Not thread-safe for one group; distinct groups may be kept in parallel. A reader between two transactions of
 * one rewrite may get a page start of the old or the new placement.
 */
public final class MarkerChanges {
  /** DynamoDB's limit of actions in one transaction. */
  public static final int MAX_ACTIONS = 100;
  /** Attempts at one group's changes before giving up with an exception. */
  public static final int ATTEMPTS = 5;
  /** The STATS item's primary key of the newest item counted, which makes a replayed insert a no-op. */
  static final String NEWEST = "newest";

  private final DynamoDbClient client;
  private final MarkerConfig config;
  private final KeySchema schema;
  private final StatsItems statsItems;
  private final String statsTable;

  /**
   * Keeps the markers {@code config} describes, with their STATS items where {@code stats} says.
   *
   * @throws NullPointerException if any argument is null
   */
  public MarkerChanges(DynamoDbClient client, MarkerConfig config, StatsItems stats) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.schema = config.schema();
    this.statsItems = Objects.requireNonNull(stats, "stats");
    this.statsTable = stats.table();
  }

  /**
   * Keeps the markers {@code config} describes, with their STATS items in the stats table {@code statsTable}.
   *
   * @throws NullPointerException if any argument is null
   */
  public MarkerChanges(DynamoDbClient client, MarkerConfig config, String statsTable) {
    this(client, config, StatsItems.inStatsTable(Objects.requireNonNull(statsTable, "statsTable")));
  }

  /**
   * What applying one group's changes did.
   *
   * @param newest whether they were one new newest item (the one-transaction case)
   * @param transactions transactions written
   * @param actions actions in them, the STATS updates included
   * @param largest actions of the largest one (at most {@value #MAX_ACTIONS})
   * @param retries transactions DynamoDB cancelled and that were tried again
   */
  public record Outcome(boolean newest, int transactions, int actions, int largest, int retries) {}

  /**
   * Brings a group's markers and STATS item in line with the table after {@code changes} (all of this group).
   *
   * @throws IllegalStateException when every attempt was cancelled
   */
  public Outcome apply(KeyValue group, List<IndexChange> changes) {
    int retries = 0;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        Stats stats = readStats(group);
        if (changes.size() == 1 && changes.get(0).removed() == null) {
          Outcome o = newestInsert(group, changes.get(0), stats, retries);
          if (o != null) {
            return o;
          }
        }
        return rewrite(group, stats, retries);
      } catch (TransactionCanceledException e) {
        retries++;
        if (attempt == ATTEMPTS) {
          throw new IllegalStateException("the markers of group " + group + " kept conflicting with other writes ("
              + reasons(e) + ") after " + ATTEMPTS + " attempts; apply the changes again or run markers build", e);
        }
        backoff(attempt);
      }
    }
    throw new AssertionError("unreachable");
  }

  private record Stats(long count, long version, AttributeValue newest) {}

  private Map<String, AttributeValue> statsKey(KeyValue group) {
    return statsItems.statsKey(group);
  }

  private Stats readStats(KeyValue group) {
    GetItemResponse r = client.getItem(b -> b.tableName(statsTable).key(statsKey(group)).consistentRead(true));
    Map<String, AttributeValue> m = r.hasItem() ? r.item() : Map.of();
    return new Stats(m.containsKey(MarkerConfig.COUNT) ? Long.parseLong(m.get(MarkerConfig.COUNT).n()) : 0,
        m.containsKey(MarkerConfig.STATS_VERSION) ? Long.parseLong(m.get(MarkerConfig.STATS_VERSION).n()) : 0,
        m.get(NEWEST));
  }

  /** One transaction when the change inserted the group's newest item (strictly: no tie); else null. */
  private Outcome newestInsert(KeyValue group, IndexChange change, Stats stats, int retries) {
    Map<String, AttributeValue> itemKey = itemKey(group, change.added());
    AttributeValue newestKey = AttributeValue.fromM(itemKey);
    if (newestKey.equals(stats.newest())) {
      return new Outcome(true, 0, 0, 0, retries); // a replay of the insert already counted
    }
    QueryResponse top = client.query(b -> b.tableName(schema.table()).indexName(schema.indexName())
        .keyConditionExpression("#g = :g").expressionAttributeNames(Map.of("#g", schema.groupAttribute()))
        .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(group))).scanIndexForward(false).limit(2));
    if (top.items().isEmpty() || !GroupWalk.primaryKey(schema, top.items().get(0)).equals(itemKey)) {
      return null;
    }
    String sortName = schema.sortAttribute().name();
    AttributeValue sort = top.items().get(0).get(sortName);
    if (!sort.equals(ItemKeys.attributeValue(change.added().get(0)))) {
      return null;
    }
    if (top.items().size() > 1) {
      KeyValue previous = ItemKeys.keyValue(sortName, schema.sortAttribute().type(), top.items().get(1).get(sortName));
      if (previous.compareTo(change.added().get(0)) >= 0) {
        return null; // a tie with the previous newest: its run's order needs the general path
      }
    }
    long count = stats.count() + 1;
    List<TransactWriteItem> actions = new ArrayList<>();
    actions.add(statsUpdate(group, stats, count, newestKey));
    if (count % config.pageSize() == 0) {
      UpdateItemRequest stamp = MarkerWrites.stamp(config, group,
          new MarkedItem(itemKey, sort, count / config.pageSize(), 0));
      actions.add(TransactWriteItem.builder().update(update(stamp)).build());
    }
    client.transactWriteItems(b -> b.transactItems(actions));
    return new Outcome(true, 1, actions.size(), actions.size(), retries);
  }

  /** Reads the group again and rewrites what differs, in transactions of at most {@link #MAX_ACTIONS}. */
  private Outcome rewrite(KeyValue group, Stats stats, int retries) {
    GroupWalk.Walk walk = GroupWalk.read(client, schema, group);
    List<MarkedItem> wanted = GroupMarkers.fromWalk(config, walk);
    Map<Map<String, AttributeValue>, MarkedItem> present = new LinkedHashMap<>();
    for (MarkedItem m : MarkerQueries.markers(client, config, group)) {
      present.put(m.primaryKey(), m);
    }
    List<TransactWriteItem> stamps = new ArrayList<>();
    for (MarkedItem w : wanted) {
      MarkedItem p = present.remove(w.primaryKey());
      if (p == null || p.page() != w.page() || p.tie() != w.tie()) {
        stamps.add(TransactWriteItem.builder().update(update(MarkerWrites.stamp(config, group, w))).build());
      }
    }
    List<TransactWriteItem> all = new ArrayList<>();
    for (MarkedItem stale : present.values()) {
      all.add(TransactWriteItem.builder().update(update(MarkerWrites.remove(config, stale))).build());
    }
    all.addAll(stamps);
    long count = walk.ascending().size();
    AttributeValue newest = count == 0 ? null
        : AttributeValue.fromM(GroupWalk.primaryKey(schema, walk.ascending().get((int) count - 1)));
    boolean statsChanged = count != stats.count() || !Objects.equals(newest, stats.newest());
    if (statsChanged) {
      all.add(statsUpdate(group, stats, count, newest));
    }
    int transactions = 0;
    int largest = 0;
    for (int from = 0; from < all.size(); from += MAX_ACTIONS) {
      List<TransactWriteItem> batch = all.subList(from, Math.min(all.size(), from + MAX_ACTIONS));
      client.transactWriteItems(b -> b.transactItems(batch));
      transactions++;
      largest = Math.max(largest, batch.size());
    }
    return new Outcome(false, transactions, all.size(), largest, retries);
  }

  /** The STATS update, conditioned on the version read, so that two appliers of one group cannot both count. */
  private TransactWriteItem statsUpdate(KeyValue group, Stats stats, long count, AttributeValue newest) {
    Map<String, String> names = new HashMap<>(Map.of("#n", MarkerConfig.COUNT, "#g", MarkerConfig.GROUP,
        "#v", MarkerConfig.STATS_VERSION, "#w", NEWEST));
    Map<String, AttributeValue> values = new HashMap<>(Map.of(":n", AttributeValue.fromN(Long.toString(count)),
        ":g", ItemKeys.attributeValue(group), ":v", AttributeValue.fromN(Long.toString(stats.version() + 1))));
    String set = "SET #n = :n, #g = :g, #v = :v";
    if (newest != null) {
      values.put(":w", newest);
      set += ", #w = :w";
    } else {
      set += " REMOVE #w";
    }
    String condition;
    if (stats.version() == 0) {
      condition = "attribute_not_exists(#k)"; // no item at all: never an item of the table's own (statsKey)
      names.put("#k", statsItems.partitionKey());
    } else {
      condition = "#v = :old";
      values.put(":old", AttributeValue.fromN(Long.toString(stats.version())));
    }
    return TransactWriteItem.builder().update(Update.builder().tableName(statsTable).key(statsKey(group))
        .updateExpression(set).conditionExpression(condition).expressionAttributeNames(names)
        .expressionAttributeValues(values).build()).build();
  }

  private static Update update(UpdateItemRequest r) {
    return Update.builder().tableName(r.tableName()).key(r.key()).updateExpression(r.updateExpression())
        .conditionExpression(r.conditionExpression()).expressionAttributeNames(r.expressionAttributeNames())
        .expressionAttributeValues(r.expressionAttributeValues()).build();
  }

  private Map<String, AttributeValue> itemKey(KeyValue group, List<KeyValue> entryKeys) {
    Map<String, AttributeValue> all = new HashMap<>();
    all.put(schema.groupAttribute(), ItemKeys.attributeValue(group));
    for (int i = 0; i < entryKeys.size(); i++) {
      all.put(schema.storedAttributes().get(i).name(), ItemKeys.attributeValue(entryKeys.get(i)));
    }
    return GroupWalk.primaryKey(schema, all);
  }

  private static String reasons(TransactionCanceledException e) {
    List<String> codes = new ArrayList<>();
    if (e.hasCancellationReasons()) {
      for (CancellationReason r : e.cancellationReasons()) {
        if (r.code() != null && !"None".equals(r.code())) {
          codes.add(r.code());
        }
      }
    }
    return codes.isEmpty() ? e.getMessage() : String.join(", ", codes);
  }

  private static void backoff(int attempt) {
    try {
      Thread.sleep(Math.min(1000, 25L << attempt) + (long) (Math.random() * 25)); // let the other writer finish
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying a cancelled transaction", e);
    }
  }
}
