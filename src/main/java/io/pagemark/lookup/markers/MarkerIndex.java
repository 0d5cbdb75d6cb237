package io.pagemark.lookup.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.format.markers.StatsItems;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * Page markers inside DynamoDB, opened for lookups: a group's count comes from its STATS item, a page start from the
 * marker item that ends the page before it. The markers are kept current in place, so there is one build, the live
 * one. Thread-safe: it holds one DynamoDB client, closed with the index.
 */
final class MarkerIndex implements Index {
  private final MarkerSpec spec;
  private final StatsItems stats;
  private final MarkerConfig config;
  private final DynamoDbClient client;

  private MarkerIndex(MarkerSpec spec, StatsItems stats, MarkerConfig config, DynamoDbClient client) {
    this.spec = spec;
    this.stats = stats;
    this.config = config;
    this.client = client;
  }

  static MarkerIndex open(MarkerSpec spec, String buildId) throws IOException {
    DynamoDbClient client = spec.connection().client();
    try {
      GetItemResponse r;
      StatsItems stats;
      try {
        stats = StatsItems.of(client, spec);
        r = client.getItem(b -> b.tableName(stats.table()).consistentRead(true).key(stats.configKey()));
      } catch (ResourceNotFoundException e) {
        throw new IOException("no page markers at " + spec.withStatsKey() + ": " + (spec.statsKey() == null
            ? "its stats table " + spec.statsTable() : "its table " + spec.table()) + " does not exist; run"
            + " pagemark markers build --table=" + spec.table() + " --markerIndex=" + spec.markerIndex() + " ...", e);
      } catch (IllegalArgumentException e) {
        throw new IOException("page markers at " + spec.withStatsKey() + ": " + e.getMessage(), e);
      }
      if (!r.hasItem() || r.item().isEmpty()) {
        throw new IOException("no page markers at " + spec.withStatsKey() + ": the " + stats
            + " hold no configuration; run pagemark markers build for it");
      }
      MarkerConfig config;
      try {
        config = MarkerConfig.fromItem(r.item());
      } catch (IllegalArgumentException e) {
        throw new IOException("page markers at " + spec + ": " + e.getMessage(), e);
      }
      if (!config.markerIndex().equals(spec.markerIndex()) || !config.schema().table().equals(spec.table())) {
        throw new IOException("the stats table " + spec.statsTable() + " holds the markers of dynamodb://"
            + config.schema().table() + "/" + config.markerIndex() + ", not of " + spec);
      }
      if (buildId != null && !buildId.equals(config.buildId())) {
        throw new IOException("page markers are kept current in place: " + spec + " holds build "
            + config.buildId() + " only, not " + buildId);
      }
      return new MarkerIndex(spec, stats, config, client);
    } catch (IOException | RuntimeException e) {
      client.close();
      if (e instanceof SdkException) {
        throw new IOException("cannot read the page markers at " + spec + ": " + e.getMessage(), e);
      }
      throw e;
    }
  }

  @Override
  public String buildId() {
    return config.buildId();
  }

  @Override
  public KeyType groupType() {
    return config.schema().groupType();
  }

  @Override
  public GroupPages group(KeyValue key) throws IOException, GroupNotFoundException {
    Objects.requireNonNull(key, "key");
    if (key.type() != groupType()) {
      throw new IllegalArgumentException("group key " + key + " is of type " + key.type() + ", not "
          + groupType() + " as the index's");
    }
    GetItemResponse r;
    try {
      r = client.getItem(b -> b.tableName(stats.table()).consistentRead(true).key(stats.statsKey(key)));
    } catch (SdkException e) {
      throw new IOException("cannot read the STATS item of group " + key + " from the " + stats + ": "
          + e.getMessage(), e);
    }
    long count = r.hasItem() && r.item().containsKey(MarkerConfig.COUNT)
        ? Long.parseLong(r.item().get(MarkerConfig.COUNT).n()) : 0;
    if (count == 0) {
      throw new GroupNotFoundException("no such group " + key + " in " + spec + ": it has no items");
    }
    return new GroupPages(new MarkerGroup(client, config, key, count));
  }

  @Override
  public String groupAttribute() {
    return config.schema().groupAttribute();
  }

  @Override
  public String sortAttribute() {
    return config.schema().sortAttribute().name();
  }

  @Override
  public List<KeyValue> groups() throws IOException {
    List<KeyValue> groups = new ArrayList<>();
    Map<String, AttributeValue> from = null;
    try {
      do {
        ScanRequest.Builder b = stats.scan();
        if (from != null) {
          b.exclusiveStartKey(from);
        }
        ScanResponse s = client.scan(b.build());
        for (Map<String, AttributeValue> item : s.items()) {
          AttributeValue g = item.get(MarkerConfig.GROUP);
          AttributeValue n = item.get(MarkerConfig.COUNT);
          if (g != null && n != null && Long.parseLong(n.n()) > 0) {
            groups.add(ItemKeys.keyValue(groupAttribute(), groupType(), g));
          }
        }
        from = s.hasLastEvaluatedKey() && !s.lastEvaluatedKey().isEmpty() ? s.lastEvaluatedKey() : null;
      } while (from != null);
    } catch (SdkException e) {
      throw new IOException("cannot list the groups of " + spec + ": " + e.getMessage(), e);
    }
    return groups;
  }

  @Override
  public void close() {
    client.close();
  }

  @Override
  public String toString() {
    return spec.toString();
  }
}
