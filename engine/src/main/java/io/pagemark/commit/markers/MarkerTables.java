package io.pagemark.commit.markers;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.format.markers.StatsItems;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.IndexStatus;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughput;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * Sets up and takes down what page markers need besides the markers: the stats table with its configuration item,
 * and the sparse marker GSI (created with {@code UpdateTable} when asked). Setting up again with the same settings
 * changes nothing; other settings over existing markers are refused.
 */
public final class MarkerTables {
  /** How long a new marker index may take to become active (DynamoDB backfills it from the whole table). */
  static final Duration INDEX_DEADLINE = Duration.ofMinutes(30);

  private MarkerTables() {}

  /**
   * Makes sure the stats table, its configuration and the marker index exist, and returns the configuration (an
   * existing one keeps its build id).
   *
   * @param createIndex whether a missing marker index is created; else it is an error
   * @throws IllegalArgumentException when existing markers were built with other settings, or the marker index is
   *     missing or of another shape
   */
  public static MarkerConfig prepare(DynamoDbClient client, MarkerSpec spec, KeySchema schema,
      String markerAttribute, int pageSize, boolean createIndex, String buildId) {
    MarkerConfig wanted = new MarkerConfig(schema, spec.markerIndex(), markerAttribute, pageSize, buildId);
    StatsItems stats = StatsItems.of(client, spec);
    if (stats.inTable()) {
      if (StatsItems.ATTRIBUTES.contains(schema.groupAttribute())) {
        throw new IllegalArgumentException("the GSI's group key " + schema.groupAttribute() + " is an attribute of"
            + " the STATS items, which the GSI would then hold: keep them in a stats table (--statsTable)");
      }
    } else {
      ensureStatsTable(client, spec.statsTable());
    }
    MarkerConfig config = writeConfig(client, spec, stats, wanted);
    ensureMarkerIndex(client, config, createIndex);
    return config;
  }

  /** The configuration of existing markers, or null when there is none. */
  public static MarkerConfig read(DynamoDbClient client, MarkerSpec spec) {
    try {
      return read(client, StatsItems.of(client, spec));
    } catch (ResourceNotFoundException e) {
      return null;
    }
  }

  private static MarkerConfig read(DynamoDbClient client, StatsItems stats) {
    GetItemResponse r;
    try {
      r = client.getItem(b -> b.tableName(stats.table()).consistentRead(true).key(stats.configKey()));
    } catch (ResourceNotFoundException e) {
      return null;
    }
    return r.hasItem() && !r.item().isEmpty() ? MarkerConfig.fromItem(r.item()) : null;
  }

  /**
   * Takes every marker off the table and deletes the stats table (with {@code statsKey}: the configuration and STATS
   * items in the table); the marker index stays (empty, it costs nothing). Returns the number of markers taken off.
   */
  public static long remove(DynamoDbClient client, MarkerSpec spec) {
    StatsItems stats;
    try {
      stats = StatsItems.of(client, spec);
    } catch (ResourceNotFoundException e) {
      return 0;
    }
    MarkerConfig config = read(client, stats);
    if (config == null) {
      return 0;
    }
    long removed = 0;
    Map<String, AttributeValue> from = null;
    do {
      ScanRequest.Builder b = ScanRequest.builder().tableName(spec.table()).indexName(spec.markerIndex());
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      ScanResponse s = client.scan(b.build());
      for (Map<String, AttributeValue> item : s.items()) {
        try {
          client.updateItem(u -> u.tableName(spec.table()).key(GroupWalk.primaryKey(config.schema(), item))
              .updateExpression("REMOVE #m, #t").conditionExpression("attribute_exists(#m)")
              .expressionAttributeNames(Map.of("#m", config.markerAttribute(), "#t", config.tieAttribute())));
          removed++;
        } catch (ConditionalCheckFailedException alreadyOff) {
          // someone else took it off: nothing to do
        }
      }
      from = s.hasLastEvaluatedKey() && !s.lastEvaluatedKey().isEmpty() ? s.lastEvaluatedKey() : null;
    } while (from != null);
    if (!stats.inTable()) {
      client.deleteTable(b -> b.tableName(spec.statsTable()));
      client.waiter().waitUntilTableNotExists(b -> b.tableName(spec.statsTable()));
      return removed;
    }
    from = null;
    do { // the STATS items first, the configuration item last: a removal cut short can be run again
      ScanRequest.Builder b = stats.scan();
      if (from != null) {
        b.exclusiveStartKey(from);
      }
      ScanResponse s = client.scan(b.build());
      for (Map<String, AttributeValue> item : s.items()) {
        Map<String, AttributeValue> key = new HashMap<>(item);
        key.keySet().retainAll(stats.configKey().keySet());
        if (!key.equals(stats.configKey())) {
          client.deleteItem(d -> d.tableName(stats.table()).key(key));
        }
      }
      from = s.hasLastEvaluatedKey() && !s.lastEvaluatedKey().isEmpty() ? s.lastEvaluatedKey() : null;
    } while (from != null);
    client.deleteItem(d -> d.tableName(stats.table()).key(stats.configKey()));
    return removed;
  }

  private static void ensureStatsTable(DynamoDbClient client, String name) {
    try {
      client.describeTable(b -> b.tableName(name));
    } catch (ResourceNotFoundException e) {
      client.createTable(b -> b.tableName(name).billingMode(BillingMode.PAY_PER_REQUEST)
          .attributeDefinitions(AttributeDefinition.builder().attributeName(MarkerConfig.KEY)
              .attributeType(ScalarAttributeType.B).build())
          .keySchema(KeySchemaElement.builder().attributeName(MarkerConfig.KEY).keyType(KeyType.HASH).build()));
    }
    client.waiter().waitUntilTableExists(b -> b.tableName(name));
  }

  private static MarkerConfig writeConfig(DynamoDbClient client, MarkerSpec spec, StatsItems stats,
      MarkerConfig wanted) {
    MarkerConfig existing = read(client, stats);
    if (existing == null) {
      try {
        client.putItem(b -> b.tableName(stats.table()).item(stats.configItem(wanted))
            .conditionExpression("attribute_not_exists(#g)")
            .expressionAttributeNames(Map.of("#g", stats.partitionKey())));
        return wanted;
      } catch (ConditionalCheckFailedException e) {
        existing = read(client, stats); // another build got there first: check its settings as below
      }
    }
    if (!existing.schema().equals(wanted.schema()) || existing.pageSize() != wanted.pageSize()
        || !existing.markerAttribute().equals(wanted.markerAttribute())) {
      throw new IllegalArgumentException(spec + " already holds markers of pages of " + existing.pageSize()
          + " on " + existing.schema().table() + (existing.schema().indexName() == null ? ""
              : "/" + existing.schema().indexName()) + " in attribute " + existing.markerAttribute()
          + "; run pagemark markers remove --index=" + spec + " first to build others");
    }
    return existing;
  }

  private static void ensureMarkerIndex(DynamoDbClient client, MarkerConfig config, boolean create) {
    String table = config.schema().table();
    TableDescription t = client.describeTable(b -> b.tableName(table)).table();
    GlobalSecondaryIndexDescription index = find(t, config.markerIndex());
    if (index == null) {
      if (!create) {
        throw new IllegalArgumentException("table " + table + " has no marker index " + config.markerIndex()
            + "; pass --createIndex to create it (UpdateTable; DynamoDB fills it from the whole table)");
      }
      createIndex(client, config, t);
    } else {
      checkShape(config, index);
    }
    long deadline = System.nanoTime() + INDEX_DEADLINE.toNanos();
    while (true) {
      GlobalSecondaryIndexDescription d = find(client.describeTable(b -> b.tableName(table)).table(),
          config.markerIndex());
      if (d != null && d.indexStatus() == IndexStatus.ACTIVE && !Boolean.TRUE.equals(d.backfilling())) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the marker index " + config.markerIndex() + " of " + table
            + " is still not active after " + INDEX_DEADLINE.toMinutes() + " minutes; run the build again later");
      }
      try {
        Thread.sleep(1000); // DynamoDB offers no waiter for an index; its status is polled
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the marker index", e);
      }
    }
  }

  private static GlobalSecondaryIndexDescription find(TableDescription t, String name) {
    for (GlobalSecondaryIndexDescription d : t.globalSecondaryIndexes()) {
      if (d.indexName().equals(name)) {
        return d;
      }
    }
    return null;
  }

  private static void checkShape(MarkerConfig config, GlobalSecondaryIndexDescription d) {
    List<KeySchemaElement> keys = d.keySchema();
    boolean ok = keys.size() == 2
        && keys.stream().anyMatch(k -> k.keyType() == KeyType.HASH
            && k.attributeName().equals(config.schema().groupAttribute()))
        && keys.stream().anyMatch(k -> k.keyType() == KeyType.RANGE
            && k.attributeName().equals(config.markerAttribute()));
    if (!ok) {
      throw new IllegalArgumentException("index " + d.indexName() + " of " + config.schema().table()
          + " is not a marker index: its key must be (" + config.schema().groupAttribute() + ", "
          + config.markerAttribute() + "); name another --markerIndex");
    }
  }

  private static void createIndex(DynamoDbClient client, MarkerConfig config, TableDescription t) {
    KeySchema schema = config.schema();
    List<String> projected = new ArrayList<>(List.of(config.tieAttribute()));
    for (KeyAttribute a : schema.storedAttributes()) {
      boolean key = schema.primaryKeyNames().contains(a.name()) || a.name().equals(schema.groupAttribute());
      if (!key) {
        projected.add(a.name());
      }
    }
    boolean provisioned = t.billingModeSummary() == null
        || t.billingModeSummary().billingMode() != BillingMode.PAY_PER_REQUEST;
    client.updateTable(b -> b.tableName(schema.table())
        .attributeDefinitions(
            AttributeDefinition.builder().attributeName(schema.groupAttribute())
                .attributeType(ScalarAttributeType.fromValue(schema.groupType().name())).build(),
            AttributeDefinition.builder().attributeName(config.markerAttribute())
                .attributeType(ScalarAttributeType.N).build())
        .globalSecondaryIndexUpdates(u -> u.create(c -> {
          c.indexName(config.markerIndex())
              .keySchema(
                  KeySchemaElement.builder().attributeName(schema.groupAttribute()).keyType(KeyType.HASH).build(),
                  KeySchemaElement.builder().attributeName(config.markerAttribute()).keyType(KeyType.RANGE).build())
              .projection(Projection.builder().projectionType(ProjectionType.INCLUDE)
                  .nonKeyAttributes(projected).build());
          if (provisioned) {
            // Markers are few (one item a page), so the table's own read and write capacity is ample for them.
            c.provisionedThroughput(ProvisionedThroughput.builder()
                .readCapacityUnits(t.provisionedThroughput().readCapacityUnits())
                .writeCapacityUnits(t.provisionedThroughput().writeCapacityUnits()).build());
          }
        })));
  }

}
