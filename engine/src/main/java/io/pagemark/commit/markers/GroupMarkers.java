package io.pagemark.commit.markers;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
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
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Puts one group's page markers where its order says they belong, and its STATS item: marker k on the item that
 * ends ascending page k, every other marker of the group taken off. Every write is conditional, so that an item a
 * user changed or deleted since the order was computed is never clobbered: the group is then read again from
 * DynamoDB itself ({@link GroupWalk}) and placed from that, up to {@value #ATTEMPTS} times in all; what still conflicts
 * is counted. Writes only what differs, so running it again on an unchanged group writes nothing.
 *
 * <p>Not thread-safe for one group; distinct groups may be written in parallel.
 */
public final class GroupMarkers {
  /** Placements of one group, the first from the build's order, the others from walks of the group. */
  public static final int ATTEMPTS = 3;

  private final DynamoDbClient client;
  private final MarkerConfig config;
  private final KeySchema schema;
  private final GroupStats stats;

  /**
   * Writes through {@code client} the markers {@code config} describes, and the STATS items where {@code stats}
   * says.
   *
   * @throws NullPointerException if any argument is null
   */
  public GroupMarkers(DynamoDbClient client, MarkerConfig config, StatsItems stats) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.stats = new GroupStats(client, config, stats);
    this.schema = config.schema();
  }

  /**
   * Writes through {@code client} the markers {@code config} describes, and the STATS items in the stats table
   * {@code statsTable}.
   *
   * @throws NullPointerException if any argument is null
   */
  public GroupMarkers(DynamoDbClient client, MarkerConfig config, String statsTable) {
    this(client, config, StatsItems.inStatsTable(statsTable));
  }

  /**
   * What writing one group did.
   *
   * @param entries the group's items as last placed
   * @param stamped markers written or rewritten
   * @param removed markers taken off
   * @param rereads times the group was read again because it had changed since its order was computed
   * @param conflicts writes that still failed their condition after the last attempt
   */
  public record Outcome(long entries, long stamped, long removed, int rereads, long conflicts) {}

  /**
   * Places the markers of a group from its records in DynamoDB's ascending order (a build's order), reading the group
   * again when a run's order is unknown or a write finds an item changed.
   */
  public Outcome write(KeyValue group, List<IndexRecord> ascending) {
    List<MarkedItem> wanted = fromRecords(group, ascending);
    long entries = ascending == null ? 0 : ascending.size();
    long stamped = 0;
    long removed = 0;
    int rereads = 0;
    for (int attempt = 1; ; attempt++) {
      if (wanted == null) {
        GroupWalk.Walk walk = GroupWalk.read(client, schema, group);
        rereads++;
        entries = walk.ascending().size();
        wanted = fromWalk(config, walk);
      }
      Apply a = apply(group, wanted);
      stamped += a.stamped;
      removed += a.removed;
      if (a.conflicts == 0 || attempt == ATTEMPTS) {
        stats.write(group, entries);
        return new Outcome(entries, stamped, removed, rereads, a.conflicts);
      }
      wanted = null;
    }
  }

  /** Places the markers of a group from a walk of it (after a change, or when no order was computed). */
  public Outcome rewrite(KeyValue group) {
    return write(group, null);
  }

  /** The markers a group's records call for, or null when a marked item's run has no known order. */
  private List<MarkedItem> fromRecords(KeyValue group, List<IndexRecord> records) {
    if (records == null) {
      return null;
    }
    int size = config.pageSize();
    List<MarkedItem> wanted = new ArrayList<>();
    for (long k = 1; k * size <= records.size(); k++) {
      int m = (int) (k * size - 1);
      IndexRecord r = records.get(m);
      if (!r.runOrderKnown()) {
        return null;
      }
      int t = r.tiePosition();
      int runStart = m - t;
      int d = t;
      for (int j = 0; j < r.runLength(); j++) {
        if (records.get(runStart + j).descendingSlot() == t) {
          d = j;
          break;
        }
      }
      long tie = d - (r.runLength() - 1 - t);
      wanted.add(new MarkedItem(primaryKey(group, r.keys()), ItemKeys.attributeValue(r.sortKey()), k, tie));
    }
    return wanted;
  }

  /** The markers a walk of a group calls for. */
  static List<MarkedItem> fromWalk(MarkerConfig config, GroupWalk.Walk walk) {
    KeySchema schema = config.schema();
    int size = config.pageSize();
    long n = walk.ascending().size();
    List<MarkedItem> wanted = new ArrayList<>();
    for (long k = 1; k * size <= n; k++) {
      long m = k * size - 1;
      Map<String, AttributeValue> item = walk.ascending().get((int) m);
      Map<String, AttributeValue> key = GroupWalk.primaryKey(schema, item);
      Long desc = walk.descending().get(key);
      // An item the descending walk missed changed between the two reads; the next attempt places it.
      long tie = desc == null ? 0 : desc - (n - 1 - m);
      wanted.add(new MarkedItem(key, item.get(schema.sortAttribute().name()), k, tie));
    }
    return wanted;
  }

  private Map<String, AttributeValue> primaryKey(KeyValue group, List<KeyValue> keys) {
    Map<String, AttributeValue> all = new HashMap<>();
    all.put(schema.groupAttribute(), ItemKeys.attributeValue(group));
    for (int i = 0; i < keys.size(); i++) {
      all.put(schema.storedAttributes().get(i).name(), ItemKeys.attributeValue(keys.get(i)));
    }
    return GroupWalk.primaryKey(schema, all);
  }

  private static final class Apply {
    long stamped;
    long removed;
    long conflicts;
  }

  private Apply apply(KeyValue group, List<MarkedItem> wanted) {
    Map<Map<String, AttributeValue>, MarkedItem> present = new LinkedHashMap<>();
    for (MarkedItem m : MarkerQueries.markers(client, config, group)) {
      present.put(m.primaryKey(), m);
    }
    List<MarkedItem> toStamp = new ArrayList<>();
    for (MarkedItem w : wanted) {
      MarkedItem p = present.remove(w.primaryKey());
      if (p == null || p.page() != w.page() || p.tie() != w.tie()) {
        toStamp.add(w);
      }
    }
    Apply a = new Apply();
    // Off first, then on: a reader meanwhile finds a marker missing (an error it reports) rather than two.
    for (MarkedItem stale : present.values()) {
      try {
        client.updateItem(MarkerWrites.remove(config, stale));
        a.removed++;
      } catch (ConditionalCheckFailedException e) {
        a.conflicts++;
      }
    }
    for (MarkedItem w : toStamp) {
      try {
        client.updateItem(MarkerWrites.stamp(config, group, w));
        a.stamped++;
      } catch (ConditionalCheckFailedException e) {
        a.conflicts++;
      }
    }
    return a;
  }
}
