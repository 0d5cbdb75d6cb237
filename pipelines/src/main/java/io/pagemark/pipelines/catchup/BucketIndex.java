package io.pagemark.pipelines.catchup;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyType;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndexDescription;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;

/**
 * The GSI a catch-up queries, bucket by bucket, as DescribeTable tells it: its partition key is the bucket attribute,
 * and it must project the grouping index's keys (the catch-up reads nothing else, and no item twice).
 *
 * @param name the GSI's name
 * @param attribute its partition key, the bucket attribute
 * @param type the bucket attribute's type, S or N
 */
record BucketIndex(String name, String attribute, KeyType type) {

  /** Reads and checks the bucket index; throws {@link IllegalArgumentException} saying what to change. */
  static BucketIndex describe(DynamoDbClient client, KeySchema schema, String index, String attribute) {
    TableDescription t = client.describeTable(b -> b.tableName(schema.table())).table();
    GlobalSecondaryIndexDescription gsi = !t.hasGlobalSecondaryIndexes() ? null
        : t.globalSecondaryIndexes().stream().filter(i -> i.indexName().equals(index)).findFirst().orElse(null);
    if (gsi == null) {
      throw new IllegalArgumentException("table " + schema.table() + " has no global secondary index \"" + index
          + "\" to read time buckets from (--bucketIndex)");
    }
    String hash = gsi.keySchema().stream().filter(k -> k.keyTypeAsString().equals("HASH"))
        .map(KeySchemaElement::attributeName).findFirst().orElseThrow();
    if (attribute != null && !attribute.equals(hash)) {
      throw new IllegalArgumentException("the partition key of " + index + " is " + hash + ", not " + attribute
          + " (--bucketAttribute)");
    }
    String typeName = t.attributeDefinitions().stream().filter(d -> d.attributeName().equals(hash))
        .map(d -> d.attributeTypeAsString()).findFirst().orElseThrow();
    KeyType type = KeyType.fromDynamoName(typeName);
    if (type == KeyType.B) {
      throw new IllegalArgumentException("the bucket attribute " + hash + " of " + index + " is binary; a bucket key"
          + " is a string or a number");
    }
    Set<String> projected = new HashSet<>(schema.primaryKeyNames());
    gsi.keySchema().forEach(k -> projected.add(k.attributeName()));
    ProjectionType p = gsi.projection().projectionType();
    if (p != ProjectionType.ALL) {
      if (p == ProjectionType.INCLUDE && gsi.projection().hasNonKeyAttributes()) {
        projected.addAll(gsi.projection().nonKeyAttributes());
      }
      List<String> missing = new java.util.ArrayList<>();
      missing.add(schema.groupAttribute());
      schema.storedAttributes().forEach(a -> missing.add(a.name()));
      missing.removeIf(projected::contains);
      if (!missing.isEmpty()) {
        throw new IllegalArgumentException(index + " does not project " + String.join(", ", missing) + ", which the"
            + " catch-up reads from it; give it projection INCLUDE with those attributes, or ALL");
      }
    }
    return new BucketIndex(index, hash, type);
  }
}
