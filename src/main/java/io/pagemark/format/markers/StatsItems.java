package io.pagemark.format.markers;

import io.pagemark.key.KeyValue;
import java.io.Serializable;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * Where a set of page markers keeps its configuration item and its groups' STATS items, and under which keys: a
 * stats table of their own (key {@code g}, binary; see {@code docs/markers.md}, "Layout"), or, with
 * {@code statsKey=PREFIX}, the marked table itself. There the configuration item's partition key is {@code PREFIX#}
 * and a group's is {@code PREFIX#} followed by the base64url of the group's stats key, so no two collide; a table
 * sort key, if any, holds a fixed value ({@code #}, 0 or the byte 0). Such items lack the GSI's group key, so no
 * index holds them: they are never pages, items of a group or marked. Immutable and serializable.
 */
public final class StatsItems implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Every attribute a configuration or STATS item may hold: a GSI keyed on one of them would index them. */
  public static final Set<String> ATTRIBUTES = Set.of(MarkerConfig.KEY, MarkerConfig.COUNT, MarkerConfig.GROUP,
      MarkerConfig.STATS_VERSION, "newest", "layout", "table", "gsi", "markerIndex", "groupAttribute", "groupType",
      "tablePartitionKey", "tableSortKey", "attributes", "markerAttribute", "pageSize", "buildId");

  private final String table;
  private final String prefix;
  private final String partitionKey;
  private final String sortKey;
  private final String sortType;

  private StatsItems(String table, String prefix, String partitionKey, String sortKey, String sortType) {
    this.table = table;
    this.prefix = prefix;
    this.partitionKey = partitionKey;
    this.sortKey = sortKey;
    this.sortType = sortType;
  }

  /** The items of a stats table of their own. */
  public static StatsItems inStatsTable(String statsTable) {
    return new StatsItems(Objects.requireNonNull(statsTable, "statsTable"), null, MarkerConfig.KEY, null, null);
  }

  /**
   * Where {@code spec} keeps them; for {@code statsKey=PREFIX}, the table's key schema is read with
   * {@code DescribeTable}.
   *
   * @throws IllegalArgumentException when the table's partition key is not a string, which a prefix needs
   * @throws software.amazon.awssdk.core.exception.SdkException when the table cannot be described
   */
  public static StatsItems of(DynamoDbClient client, MarkerSpec spec) {
    if (spec.statsKey() == null) {
      return inStatsTable(spec.statsTable());
    }
    TableDescription t = client.describeTable(b -> b.tableName(spec.table())).table();
    String pk = null;
    String sk = null;
    for (KeySchemaElement k : t.keySchema()) {
      if (k.keyType() == KeyType.HASH) {
        pk = k.attributeName();
      } else {
        sk = k.attributeName();
      }
    }
    String skName = sk;
    String pkType = type(t, pk);
    if (!"S".equals(pkType)) {
      throw new IllegalArgumentException("statsKey needs a table whose partition key is a string; " + spec.table()
          + "'s partition key " + pk + " is of type " + pkType + ": keep the STATS items in a stats table instead"
          + " (--statsTable)");
    }
    return new StatsItems(spec.table(), spec.statsKey(), pk, sk, sk == null ? null : type(t, skName));
  }

  private static String type(TableDescription t, String attribute) {
    return t.attributeDefinitions().stream().filter(d -> d.attributeName().equals(attribute)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("table " + t.tableName() + " does not define " + attribute))
        .attributeTypeAsString();
  }

  /** The table that holds the items. */
  public String table() {
    return table;
  }

  /** Whether the items live in the marked table itself ({@code statsKey}). */
  public boolean inTable() {
    return prefix != null;
  }

  /** The items' partition key attribute. */
  public String partitionKey() {
    return partitionKey;
  }

  /** The configuration item's key. */
  public Map<String, AttributeValue> configKey() {
    if (prefix == null) {
      return Map.of(MarkerConfig.KEY, AttributeValue.fromB(SdkBytes.fromByteArray(MarkerConfig.CONFIG_KEY)));
    }
    return key(prefix + "#");
  }

  /** A group's STATS item's key. */
  public Map<String, AttributeValue> statsKey(KeyValue group) {
    SdkBytes k = MarkerConfig.statsKey(group);
    if (prefix == null) {
      return Map.of(MarkerConfig.KEY, AttributeValue.fromB(k));
    }
    return key(prefix + "#" + Base64.getUrlEncoder().withoutPadding().encodeToString(k.asByteArray()));
  }

  private Map<String, AttributeValue> key(String partition) {
    Map<String, AttributeValue> m = new HashMap<>();
    m.put(partitionKey, AttributeValue.fromS(partition));
    if (sortKey != null) {
      m.put(sortKey, switch (sortType) {
        case "S" -> AttributeValue.fromS("#");
        case "N" -> AttributeValue.fromN("0");
        default -> AttributeValue.fromB(SdkBytes.fromByteArray(new byte[] {0}));
      });
    }
    return m;
  }

  /** The configuration item as these items hold it: {@link MarkerConfig#toItem()} under {@link #configKey()}. */
  public Map<String, AttributeValue> configItem(MarkerConfig config) {
    Map<String, AttributeValue> item = new HashMap<>(config.toItem());
    item.remove(MarkerConfig.KEY);
    item.putAll(configKey());
    return item;
  }

  /** A Scan that returns the configuration and every STATS item (with others' items filtered out, in the table). */
  public ScanRequest.Builder scan() {
    ScanRequest.Builder b = ScanRequest.builder().tableName(table).consistentRead(true);
    if (prefix != null) {
      b.filterExpression("begins_with(#pk, :prefix)")
          .expressionAttributeNames(Map.of("#pk", partitionKey))
          .expressionAttributeValues(Map.of(":prefix", AttributeValue.fromS(prefix + "#")));
    }
    return b;
  }

  @Override
  public String toString() {
    return prefix == null ? "stats table " + table : "items " + prefix + "#... of table " + table;
  }
}
