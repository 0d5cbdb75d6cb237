package io.pagemark.commit.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.StatsItems;
import io.pagemark.key.KeyValue;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.Select;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The STATS items of a build: a group's count written when it changed, and the STATS items of groups whose items are
 * all gone deleted. Each write is conditioned on the version read (a new item only where no item is), so a change
 * the stream applies meanwhile is never overwritten, and an item of the table that is not a STATS item (with
 * {@code statsKey}) is never written over. Thread-safe when its client is.
 */
public final class GroupStats {
  /** Tries of one STATS write that a concurrent change keeps overtaking. */
  static final int ATTEMPTS = 5;

  private final DynamoDbClient client;
  private final MarkerConfig config;
  private final StatsItems stats;

  /**
   * The STATS items {@code stats} locates, of the markers {@code config} describes.
   *
   * @throws NullPointerException if any argument is null
   */
  public GroupStats(DynamoDbClient client, MarkerConfig config, StatsItems stats) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.stats = Objects.requireNonNull(stats, "stats");
  }

  /**
   * Sets a group's count unless its STATS item already says as much.
   *
   * @throws IllegalStateException when the key holds an item that is not a STATS item, or the item kept changing
   */
  public void write(KeyValue group, long entries) {
    Map<String, AttributeValue> key = stats.statsKey(group);
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      GetItemResponse r = client.getItem(b -> b.tableName(stats.table()).key(key).consistentRead(true));
      Map<String, AttributeValue> old = r.hasItem() ? r.item() : Map.of();
      if (!old.isEmpty() && !old.containsKey(MarkerConfig.STATS_VERSION)) {
        throw new IllegalStateException("the " + stats + " hold an item at " + key + " that is not the STATS item"
            + " of group " + group + "; keep the STATS items under another prefix (--statsKey) or in a stats"
            + " table (--statsTable)");
      }
      if (old.containsKey(MarkerConfig.COUNT) && Long.parseLong(old.get(MarkerConfig.COUNT).n()) == entries) {
        return;
      }
      Map<String, String> names = new HashMap<>(Map.of("#n", MarkerConfig.COUNT, "#g", MarkerConfig.GROUP,
          "#v", MarkerConfig.STATS_VERSION));
      Map<String, AttributeValue> values = new HashMap<>(Map.of(":n", AttributeValue.fromN(Long.toString(entries)),
          ":g", ItemKeys.attributeValue(group)));
      String condition;
      if (old.isEmpty()) {
        values.put(":v", AttributeValue.fromN("1"));
        condition = "attribute_not_exists(#k)";
        names.put("#k", stats.partitionKey());
      } else {
        long version = Long.parseLong(old.get(MarkerConfig.STATS_VERSION).n());
        values.put(":v", AttributeValue.fromN(Long.toString(version + 1)));
        values.put(":old", old.get(MarkerConfig.STATS_VERSION));
        condition = "#v = :old";
      }
      try {
        client.updateItem(UpdateItemRequest.builder().tableName(stats.table()).key(key)
            .updateExpression("SET #n = :n, #g = :g, #v = :v").conditionExpression(condition)
            .expressionAttributeNames(names).expressionAttributeValues(values).build());
        return;
      } catch (ConditionalCheckFailedException e) {
        // the stream changed the group meanwhile: read it again
      }
    }
    throw new IllegalStateException("the STATS item of group " + group + " kept changing while the build wrote it;"
        + " run the build again");
  }

  /**
   * Deletes the STATS items of groups that have no item left in the GSI (a group whose items all went since a build
   * counted them), each on condition that its version is still the one read. Returns how many went.
   */
  public long removeVanished() {
    long removed = 0;
    Map<String, AttributeValue> from = null;
    do {
      ScanRequest.Builder b = stats.scan();
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      ScanResponse s = client.scan(b.build());
      for (Map<String, AttributeValue> item : s.items()) {
        AttributeValue group = item.get(MarkerConfig.GROUP);
        AttributeValue version = item.get(MarkerConfig.STATS_VERSION);
        if (group == null || version == null || hasItems(group)) {
          continue;
        }
        Map<String, AttributeValue> key = new HashMap<>(item);
        key.keySet().retainAll(stats.configKey().keySet());
        try {
          client.deleteItem(d -> d.tableName(stats.table()).key(key).conditionExpression("#v = :v")
              .expressionAttributeNames(Map.of("#v", MarkerConfig.STATS_VERSION))
              .expressionAttributeValues(Map.of(":v", version)));
          removed++;
        } catch (ConditionalCheckFailedException e) {
          // the stream counted a new item of the group meanwhile: it stays
        }
      }
      from = s.hasLastEvaluatedKey() && !s.lastEvaluatedKey().isEmpty() ? s.lastEvaluatedKey() : null;
    } while (from != null);
    return removed;
  }

  private boolean hasItems(AttributeValue group) {
    QueryResponse r = client.query(q -> q.tableName(config.schema().table()).indexName(config.schema().indexName())
        .keyConditionExpression("#g = :g").expressionAttributeNames(Map.of("#g", config.schema().groupAttribute()))
        .expressionAttributeValues(Map.of(":g", group)).limit(1).select(Select.COUNT).consistentRead(false));
    return r.count() > 0 || (r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty());
  }
}
