package io.pagemark.lookup.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PagedGroup;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * One group's page starts from its markers: marker k sits on the item that ends ascending page k, so ascending page
 * n starts after marker n - 1. A descending page starts after the first marker at or past it in descending order,
 * whose descending position the marker's tie attribute corrects inside runs of equal sort keys, with the items
 * between dropped (fewer than a page but for long runs of equal sort keys). One Query of the marker index a page.
 */
final class MarkerGroup implements PagedGroup {
  /** Marker items a descending page start reads first: the first one answers unless runs of equal keys intervene. */
  private static final int FIRST_READ = 2;

  private final DynamoDbClient client;
  private final MarkerConfig config;
  private final KeyValue group;
  private final long count;

  MarkerGroup(DynamoDbClient client, MarkerConfig config, KeyValue group, long count) {
    this.client = client;
    this.config = config;
    this.group = group;
    this.count = count;
  }

  @Override
  public KeyValue group() {
    return group;
  }

  @Override
  public String groupAttribute() {
    return config.schema().groupAttribute();
  }

  @Override
  public List<KeyAttribute> attributes() {
    return config.schema().storedAttributes();
  }

  @Override
  public String buildId() {
    return config.buildId();
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public int pageSize() {
    return config.pageSize();
  }

  @Override
  public Start startAt(long position, Order order) throws IOException {
    if (position == 0) {
      return new Start(null, 0);
    }
    long size = config.pageSize();
    try {
      return order == Order.ASC ? ascending(position, size) : descending(position, size);
    } catch (SdkException e) {
      throw new IOException("cannot read the markers of group " + group + " from " + config.markerIndex() + ": "
          + e.getMessage(), e);
    }
  }

  private Start ascending(long position, long size) throws IOException {
    long k = position / size;
    if (k == 0) {
      return new Start(null, position);
    }
    QueryResponse r = client.query(markers("= :k", k, 1));
    if (r.items().isEmpty()) {
      throw new IOException("group " + group + " has " + count + " items but no marker " + k + " in "
          + config.markerIndex() + ": the markers are being rewritten or were removed; run pagemark markers build"
          + " again if this persists");
    }
    return new Start(startKey(r.items().get(0)), position - k * size);
  }

  private Start descending(long position, long size) throws IOException {
    long first = (count - position + size) / size; // the first marker at ascending rank count - position or later
    Map<String, AttributeValue> from = null;
    int limit = FIRST_READ;
    do {
      QueryRequest.Builder q = markers(">= :k", first, limit).toBuilder();
      if (from != null) {
        q.exclusiveStartKey(from);
      }
      QueryResponse r = client.query(q.build());
      for (Map<String, AttributeValue> item : r.items()) {
        long k = Long.parseLong(item.get(config.markerAttribute()).n());
        AttributeValue tie = item.get(config.tieAttribute());
        long at = count - k * size + (tie == null ? 0 : Long.parseLong(tie.n()));
        if (at >= 0 && at <= position - 1) {
          return new Start(startKey(item), position - 1 - at);
        }
      }
      from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      limit = 100;
    } while (from != null);
    // Every later marker sits inside a run of equal sort keys past this position: read from the group's start.
    return new Start(null, position);
  }

  @Override
  public List<GroupPages.Entry> entries(long position, int n, Order order) throws IOException {
    if (position < 0 || position >= count || n < 1) {
      return List.of();
    }
    try {
      return new MarkerEntries(this, client, config, group, count).entries(position, n, order);
    } catch (SdkException e) {
      throw new IOException("cannot read group " + group + " from " + config.schema().table() + ": "
          + e.getMessage(), e);
    }
  }

  @Override
  public long positionOf(List<KeyValue> keys, Order order) throws IOException {
    try {
      return new MarkerEntries(this, client, config, group, count).positionOf(keys, order);
    } catch (SdkException e) {
      throw new IOException("cannot read group " + group + " from " + config.schema().table() + ": "
          + e.getMessage(), e);
    }
  }

  /** The marker item of ascending page {@code k} (its keys and the GSI's sort key), or null when it is missing. */
  Map<String, AttributeValue> marker(long k) {
    QueryResponse r = client.query(markers("= :k", k, 1));
    return r.items().isEmpty() ? null : r.items().get(0);
  }

  private QueryRequest markers(String condition, long k, int limit) {
    return QueryRequest.builder()
        .tableName(config.schema().table())
        .indexName(config.markerIndex())
        .keyConditionExpression("#g = :g AND #m " + condition)
        .expressionAttributeNames(Map.of("#g", config.schema().groupAttribute(), "#m", config.markerAttribute()))
        .expressionAttributeValues(Map.of(":g", ItemKeys.attributeValue(group), ":k",
            AttributeValue.fromN(Long.toString(k))))
        .limit(limit)
        .build();
  }

  Map<String, KeyValue> startKey(Map<String, AttributeValue> item) throws IOException {
    Map<String, KeyValue> key = new LinkedHashMap<>();
    key.put(groupAttribute(), group);
    for (KeyAttribute a : attributes()) {
      AttributeValue v = item.get(a.name());
      if (v == null) {
        throw new IOException("the marker index " + config.markerIndex() + " does not project " + a.name()
            + ", which a page start needs; create it with pagemark markers build --createIndex (it projects the"
            + " sort key and the tie attribute)");
      }
      key.put(a.name(), ItemKeys.keyValue(a.name(), a.type(), v));
    }
    return key;
  }

  @Override
  public void close() {}
}
