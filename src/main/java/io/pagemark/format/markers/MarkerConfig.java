package io.pagemark.format.markers;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What a set of page markers is built on, as its stats table's configuration item holds it (see
 * {@code docs/markers.md}, "Layout"): the table and the GSI whose pages are numbered, the key attributes, the marker
 * attributes and the one page size. Both the writer and the reader take every name from here. Immutable.
 *
 * @param schema the table, the GSI whose pages are numbered and their key attributes
 * @param markerIndex the sparse GSI on (group key, marker)
 * @param markerAttribute the marker attribute: page k's number on the last item of page k (ascending)
 * @param pageSize the page size the markers are built for
 * @param buildId the build that first wrote the markers (they are kept current in place)
 */
public record MarkerConfig(
    KeySchema schema, String markerIndex, String markerAttribute, int pageSize, String buildId)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The layout's version; a reader refuses any other. */
  public static final int VERSION = 1;
  /** The stats table's key attribute (binary): the configuration item's is {@link #CONFIG_KEY}. */
  public static final String KEY = "g";
  /** The configuration item's key: a byte no group key's type code takes. */
  public static final byte[] CONFIG_KEY = {0};
  /** A STATS item's entry count. */
  public static final String COUNT = "count";
  /** A STATS item's group key, as the table holds it. */
  public static final String GROUP = "group";
  /** A STATS item's version, raised by every change, which transactions condition on. */
  public static final String STATS_VERSION = "version";
  /** The default marker attribute. */
  public static final String DEFAULT_MARKER_ATTRIBUTE = "pm_page";

  public MarkerConfig {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(markerIndex, "markerIndex");
    Objects.requireNonNull(markerAttribute, "markerAttribute");
    Objects.requireNonNull(buildId, "buildId");
    if (pageSize < 1) {
      throw new IllegalArgumentException("page size must be at least 1, not " + pageSize);
    }
  }

  /**
   * The tie attribute beside the marker: how far DynamoDB's descending order puts the marked item from where the
   * reverse of its ascending order would ({@code MARKER_tie}; absent when 0, as it is outside runs of equal sort keys).
   */
  public String tieAttribute() {
    return markerAttribute + "_tie";
  }

  /** The stats table key of a group's STATS item: the key type's code, then the key's stored bytes. */
  public static SdkBytes statsKey(KeyValue group) {
    byte[] b = group.bytes();
    byte[] k = new byte[b.length + 1];
    k[0] = group.type().code();
    System.arraycopy(b, 0, k, 1, b.length);
    return SdkBytes.fromByteArray(k);
  }

  /** The configuration item, as the stats table holds it. */
  public Map<String, AttributeValue> toItem() {
    Map<String, AttributeValue> m = new HashMap<>();
    m.put(KEY, AttributeValue.fromB(SdkBytes.fromByteArray(CONFIG_KEY)));
    m.put("layout", AttributeValue.fromN(Integer.toString(VERSION)));
    m.put("table", AttributeValue.fromS(schema.table()));
    if (schema.indexName() != null) {
      m.put("gsi", AttributeValue.fromS(schema.indexName()));
    }
    m.put("markerIndex", AttributeValue.fromS(markerIndex));
    m.put("groupAttribute", AttributeValue.fromS(schema.groupAttribute()));
    m.put("groupType", AttributeValue.fromS(schema.groupType().name()));
    m.put("tablePartitionKey", AttributeValue.fromS(schema.tablePartitionKey()));
    if (schema.tableSortKey() != null) {
      m.put("tableSortKey", AttributeValue.fromS(schema.tableSortKey()));
    }
    List<AttributeValue> attrs = new ArrayList<>();
    for (KeyAttribute a : schema.storedAttributes()) {
      attrs.add(AttributeValue.fromM(Map.of(
          "name", AttributeValue.fromS(a.name()),
          "type", AttributeValue.fromS(a.type().name()),
          "roles", AttributeValue.fromN(Integer.toString(a.roles())))));
    }
    m.put("attributes", AttributeValue.fromL(attrs));
    m.put("markerAttribute", AttributeValue.fromS(markerAttribute));
    m.put("pageSize", AttributeValue.fromN(Integer.toString(pageSize)));
    m.put("buildId", AttributeValue.fromS(buildId));
    return m;
  }

  /**
   * Reads a configuration item.
   *
   * @throws IllegalArgumentException when the item is of another layout version or lacks a field
   */
  public static MarkerConfig fromItem(Map<String, AttributeValue> m) {
    try {
      int layout = Integer.parseInt(m.get("layout").n());
      if (layout != VERSION) {
        throw new IllegalArgumentException("the markers are of layout " + layout + "; this pagemark reads layout "
            + VERSION + " only");
      }
      List<KeyAttribute> attrs = new ArrayList<>();
      for (AttributeValue v : m.get("attributes").l()) {
        attrs.add(new KeyAttribute(v.m().get("name").s(), KeyType.valueOf(v.m().get("type").s()),
            Integer.parseInt(v.m().get("roles").n())));
      }
      KeySchema schema = new KeySchema(m.get("table").s(), m.containsKey("gsi") ? m.get("gsi").s() : null,
          m.get("groupAttribute").s(), KeyType.valueOf(m.get("groupType").s()), attrs,
          m.get("tablePartitionKey").s(), m.containsKey("tableSortKey") ? m.get("tableSortKey").s() : null);
      return new MarkerConfig(schema, m.get("markerIndex").s(), m.get("markerAttribute").s(),
          Integer.parseInt(m.get("pageSize").n()), m.get("buildId").s());
    } catch (NullPointerException | NumberFormatException e) {
      throw new IllegalArgumentException("the markers' configuration item is damaged: " + m.keySet(), e);
    }
  }
}
