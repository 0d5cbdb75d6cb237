package io.pagemark.dynamo;

import io.pagemark.format.KeyAttribute;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * The key attributes an index is built on: the group key (the GSI's partition key), the sort key (its range key), and
 * the base table's primary key, which every exclusive start key on a GSI must also carry. Discovered from
 * DescribeTable ({@link #describe}) or given explicitly ({@link #explicit}).
 *
 * @param table the table name
 * @param indexName the GSI to page through, or null when the attributes are the table's own keys or explicit
 * @param groupAttribute the group key attribute and its type
 * @param storedAttributes the attributes stored per entry: the sort key first, then the table's key attributes that
 *     are neither the group nor the sort key
 * @param tablePartitionKey the table's partition key name
 * @param tableSortKey the table's sort key name, or null
 */
public record KeySchema(
    String table,
    String indexName,
    String groupAttribute,
    io.pagemark.key.KeyType groupType,
    List<KeyAttribute> storedAttributes,
    String tablePartitionKey,
    String tableSortKey)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public KeySchema {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(groupAttribute, "groupAttribute");
    Objects.requireNonNull(groupType, "groupType");
    Objects.requireNonNull(tablePartitionKey, "tablePartitionKey");
    storedAttributes = List.copyOf(storedAttributes);
  }

  /** The index sort key attribute. */
  public KeyAttribute sortAttribute() {
    return storedAttributes.get(0);
  }

  /** Every attribute an exclusive start key holds, with its type, group key first. */
  public Map<String, io.pagemark.key.KeyType> startKeyAttributes() {
    Map<String, io.pagemark.key.KeyType> m = new LinkedHashMap<>();
    m.put(groupAttribute, groupType);
    for (KeyAttribute a : storedAttributes) {
      m.put(a.name(), a.type());
    }
    return m;
  }

  /** The names of the table's primary key attributes (partition key, then sort key if any). */
  public List<String> primaryKeyNames() {
    return tableSortKey == null ? List.of(tablePartitionKey) : List.of(tablePartitionKey, tableSortKey);
  }

  /**
   * Whether equal sort keys can occur in a group: not when the group and sort attributes are the table's own
   * partition and sort key, which together are unique.
   */
  public boolean tiesPossible() {
    return !(groupAttribute.equals(tablePartitionKey) && sortAttribute().name().equals(tableSortKey));
  }

  /**
   * Reads the key schema of a table's GSI with DescribeTable: group key = the GSI's partition key, sort key = its
   * range key. Throws {@link IllegalArgumentException} with a clear message when the table or index does not exist or
   * the index has no range key.
   */
  public static KeySchema describe(DynamoDbClient client, String table, String indexName) {
    TableDescription t = describeTable(client, table);
    GlobalSecondaryIndexDescription gsi =
        t.hasGlobalSecondaryIndexes()
            ? t.globalSecondaryIndexes().stream()
                .filter(i -> i.indexName().equals(indexName))
                .findFirst()
                .orElse(null)
            : null;
    if (gsi == null) {
      List<String> names = new ArrayList<>();
      if (t.hasGlobalSecondaryIndexes()) {
        t.globalSecondaryIndexes().forEach(i -> names.add(i.indexName()));
      }
      throw new IllegalArgumentException(
          "table " + table + " has no global secondary index \"" + indexName + "\" (it has: "
              + (names.isEmpty() ? "none" : String.join(", ", names)) + ")");
    }
    String hash = keyName(gsi.keySchema(), software.amazon.awssdk.services.dynamodb.model.KeyType.HASH);
    String range = keyName(gsi.keySchema(), software.amazon.awssdk.services.dynamodb.model.KeyType.RANGE);
    if (range == null) {
      throw new IllegalArgumentException(
          "index " + indexName + " of table " + table + " has no sort (range) key; pages need one");
    }
    return build(t, indexName, hash, typeOf(t, hash, null), range, typeOf(t, range, null));
  }

  /**
   * A schema for explicit group and sort attributes. Their types come from the table's attribute definitions when
   * the table declares them, else from the given types. {@code indexName} may name the GSI that the pages will be
   * read from (used to learn DynamoDB's order of equal sort keys), or be null.
   */
  public static KeySchema explicit(
      DynamoDbClient client,
      String table,
      String indexName,
      String groupAttribute,
      io.pagemark.key.KeyType groupType,
      String sortAttribute,
      io.pagemark.key.KeyType sortType) {
    TableDescription t = describeTable(client, table);
    return build(
        t,
        indexName,
        groupAttribute,
        typeOf(t, groupAttribute, groupType),
        sortAttribute,
        typeOf(t, sortAttribute, sortType));
  }

  private static KeySchema build(
      TableDescription t,
      String indexName,
      String group,
      io.pagemark.key.KeyType groupType,
      String sort,
      io.pagemark.key.KeyType sortType) {
    if (group.equals(sort)) {
      throw new IllegalArgumentException("the group and sort attributes must differ, both are " + group);
    }
    String pk = keyName(t.keySchema(), software.amazon.awssdk.services.dynamodb.model.KeyType.HASH);
    String sk = keyName(t.keySchema(), software.amazon.awssdk.services.dynamodb.model.KeyType.RANGE);
    List<KeyAttribute> stored = new ArrayList<>();
    int sortRoles = KeyAttribute.INDEX_SORT_KEY
        | (sort.equals(pk) ? KeyAttribute.TABLE_PARTITION_KEY : 0)
        | (sort.equals(sk) ? KeyAttribute.TABLE_SORT_KEY : 0);
    stored.add(new KeyAttribute(sort, sortType, sortRoles));
    if (!pk.equals(group) && !pk.equals(sort)) {
      stored.add(new KeyAttribute(pk, typeOf(t, pk, null), KeyAttribute.TABLE_PARTITION_KEY));
    }
    if (sk != null && !sk.equals(group) && !sk.equals(sort)) {
      stored.add(new KeyAttribute(sk, typeOf(t, sk, null), KeyAttribute.TABLE_SORT_KEY));
    }
    return new KeySchema(t.tableName(), indexName, group, groupType, stored, pk, sk);
  }

  private static TableDescription describeTable(DynamoDbClient client, String table) {
    try {
      DescribeTableResponse r = client.describeTable(b -> b.tableName(table));
      return r.table();
    } catch (ResourceNotFoundException e) {
      throw new IllegalArgumentException("table " + table + " does not exist", e);
    }
  }

  private static String keyName(List<KeySchemaElement> schema, software.amazon.awssdk.services.dynamodb.model.KeyType type) {
    return schema.stream().filter(k -> k.keyType() == type).map(KeySchemaElement::attributeName).findFirst()
        .orElse(null);
  }

  private static io.pagemark.key.KeyType typeOf(
      TableDescription t, String attribute, io.pagemark.key.KeyType fallback) {
    for (AttributeDefinition d : t.attributeDefinitions()) {
      if (d.attributeName().equals(attribute)) {
        return io.pagemark.key.KeyType.fromDynamoName(d.attributeTypeAsString());
      }
    }
    if (fallback == null) {
      throw new IllegalArgumentException("table " + t.tableName() + " does not define attribute " + attribute);
    }
    return fallback;
  }
}
