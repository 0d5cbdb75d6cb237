package io.pagemark.transforms.source;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.Json;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.TupleTag;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * Reads one time bucket to its end: Queries the bucket index for the bucket's partition, following
 * {@code LastEvaluatedKey} page after page, and turns each item into an upsert of its entry in the grouping index
 * (an {@link IndexChange} that adds the entry and names no removed one). Items the grouping index would not hold are
 * counted and skipped; items whose keys it cannot hold are dead letters with the reason. Only the key attributes are
 * projected, and the read capacity DynamoDB reports is counted.
 */
final class QueryBucketFn extends DoFn<String, IndexChange> {
  static final TupleTag<IndexChange> CHANGES = new TupleTag<>("changes") {};
  static final TupleTag<String> DEAD_LETTERS = new TupleTag<>("deadLetters") {};

  private final DynamoConnection connection;
  private final KeySchema schema;
  private final String bucketIndex;
  private final String bucketAttribute;
  private final KeyType bucketType;
  private final Version version;
  private final Counter buckets = Metrics.counter(ReadTimeBuckets.METRICS, "bucketsRead");
  private final Counter items = Metrics.counter(ReadTimeBuckets.METRICS, "itemsRead");
  private final Counter pages = Metrics.counter(ReadTimeBuckets.METRICS, "queryPages");
  private final Counter capacity = Metrics.counter(ReadTimeBuckets.METRICS, ReadTimeBuckets.READ_CAPACITY_MILLI);
  private final Counter upserts = Metrics.counter(ReadTimeBuckets.METRICS, "upserts");
  private final Counter skipped = Metrics.counter(ReadTimeBuckets.METRICS, "skippedNotInIndex");
  private final Counter deadLetters = Metrics.counter(ReadTimeBuckets.METRICS, "deadLetters");
  private final Counter retries = Metrics.counter(ReadTimeBuckets.METRICS, "throttledRetries");
  private transient DynamoDbClient client;

  QueryBucketFn(DynamoConnection connection, KeySchema schema, String bucketIndex, String bucketAttribute,
      KeyType bucketType, Version version) {
    this.connection = connection;
    this.schema = schema;
    this.bucketIndex = bucketIndex;
    this.bucketAttribute = bucketAttribute;
    this.bucketType = bucketType;
    this.version = version;
  }

  @Setup
  public void setup() {
    client = connection.client(retries::inc);
  }

  @ProcessElement
  public void process(@Element String bucket, MultiOutputReceiver out) {
    List<String> names = projected(schema);
    Map<String, String> aliases = new HashMap<>();
    List<String> projection = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      aliases.put("#k" + i, names.get(i));
      projection.add("#k" + i);
    }
    aliases.put("#bucket", bucketAttribute);
    AttributeValue key = bucketType == KeyType.N ? AttributeValue.fromN(bucket) : AttributeValue.fromS(bucket);
    Map<String, AttributeValue> start = null;
    do {
      QueryRequest.Builder req = QueryRequest.builder()
          .tableName(schema.table())
          .indexName(bucketIndex)
          .keyConditionExpression("#bucket = :bucket")
          .expressionAttributeNames(aliases)
          .expressionAttributeValues(Map.of(":bucket", key))
          .projectionExpression(String.join(",", projection))
          .returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
      if (start != null) {
        req.exclusiveStartKey(start);
      }
      QueryResponse page = client.query(req.build());
      pages.inc();
      if (page.consumedCapacity() != null && page.consumedCapacity().capacityUnits() != null) {
        capacity.inc(Math.round(page.consumedCapacity().capacityUnits() * 1000));
      }
      for (Map<String, AttributeValue> item : page.items()) {
        emit(item, names, out);
      }
      items.inc(page.items().size());
      start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty() ? page.lastEvaluatedKey() : null;
    } while (start != null);
    buckets.inc();
  }

  private void emit(Map<String, AttributeValue> item, List<String> names, MultiOutputReceiver out) {
    ItemKeys.Extraction x = ItemKeys.extract(schema, item);
    if (x.skip() != null) {
      skipped.inc();
      return;
    }
    String rejection = x.rejection();
    List<KeyValue> itemKey = new ArrayList<>(2);
    if (rejection == null) {
      Map<String, KeyType> types = schema.startKeyAttributes();
      try {
        for (String n : schema.primaryKeyNames()) {
          itemKey.add(ItemKeys.keyValue(n, types.get(n), item.get(n)));
        }
      } catch (IllegalArgumentException | NullPointerException e) {
        rejection = "table key: " + e.getMessage();
      }
    }
    if (rejection != null) {
      deadLetters.inc();
      ObjectNode line = Json.object().put("reason", rejection);
      line.set("key", ItemKeys.describeJson(item, schema.primaryKeyNames()));
      line.set("attributes", ItemKeys.describeJson(item, names));
      out.get(DEAD_LETTERS).output(Json.write(line));
      return;
    }
    upserts.inc();
    out.get(CHANGES).output(new IndexChange(x.entry().group(), itemKey, version, null, x.entry().keys()));
  }

  /** The attributes a bucket's items are read with: the grouping index's keys and the table's. */
  static List<String> projected(KeySchema schema) {
    LinkedHashSet<String> names = new LinkedHashSet<>();
    names.add(schema.groupAttribute());
    schema.storedAttributes().forEach(a -> names.add(a.name()));
    names.addAll(schema.primaryKeyNames());
    return new ArrayList<>(names);
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
