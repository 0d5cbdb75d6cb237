package io.pagemark.format.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The meta hash of a Redis index ({@code P meta}): the format version and key schema, written by the first build and
 * the same for every later one (a member can only be decoded with it), and the last build that finished loading.
 *
 * @param indexName the GSI, or null for an index given by its attributes
 * @param attributes the attributes stored in each member, the index sort key first
 * @param buildId the last finished build, or null while the first build is loading
 * @param finishedAtMillis when that build finished, 0 if none
 * @param entries entries of that build
 * @param groups groups of that build
 */
public record RedisIndexMeta(
    int formatVersion,
    String table,
    String indexName,
    String groupAttribute,
    KeyType groupType,
    List<KeyAttribute> attributes,
    String buildId,
    long finishedAtMillis,
    long entries,
    long groups)
    implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  static final String FORMAT_VERSION = "formatVersion";
  static final String TABLE = "table";
  static final String INDEX_NAME = "indexName";
  static final String GROUP_ATTRIBUTE = "groupAttribute";
  static final String GROUP_TYPE = "groupType";
  static final String ATTRIBUTES = "attributes";
  static final String BUILD_ID = "buildId";
  static final String FINISHED_AT = "finishedAtMillis";
  static final String ENTRIES = "entries";
  static final String GROUPS = "groups";

  public RedisIndexMeta {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(groupAttribute, "groupAttribute");
    Objects.requireNonNull(groupType, "groupType");
    attributes = List.copyOf(attributes);
    if (attributes.isEmpty()) {
      throw new IllegalArgumentException("an index stores at least its sort key");
    }
  }

  /** The schema part of a new index (no finished build yet). */
  public static RedisIndexMeta schema(
      String table, String indexName, String groupAttribute, KeyType groupType, List<KeyAttribute> attributes) {
    return new RedisIndexMeta(
        RedisLayout.FORMAT_VERSION, table, indexName, groupAttribute, groupType, attributes, null, 0, 0, 0);
  }

  /** This schema with a finished build. */
  public RedisIndexMeta finished(String build, long atMillis, long entryCount, long groupCount) {
    return new RedisIndexMeta(formatVersion, table, indexName, groupAttribute, groupType, attributes, build,
        atMillis, entryCount, groupCount);
  }

  /** Whether two metas describe the same key schema (so members of one decode with the other). */
  public boolean sameSchema(RedisIndexMeta o) {
    return formatVersion == o.formatVersion
        && table.equals(o.table)
        && Objects.equals(indexName, o.indexName)
        && groupAttribute.equals(o.groupAttribute)
        && groupType == o.groupType
        && attributes.equals(o.attributes);
  }

  /** A one-line description of the schema, for messages: {@code table comments, index byProduct (PK2 S; SK S, PK S)}. */
  public String describeSchema() {
    StringBuilder b = new StringBuilder("table ").append(table);
    b.append(indexName == null ? ", attributes" : ", index " + indexName).append(" (").append(groupAttribute)
        .append(' ').append(groupType).append(';');
    for (int i = 0; i < attributes.size(); i++) {
      b.append(i == 0 ? " " : ", ").append(attributes.get(i).name()).append(' ').append(attributes.get(i).type());
    }
    return b.append(')').toString();
  }

  /** The schema fields, as written by the first build. */
  public Map<byte[], byte[]> schemaFields() {
    Map<byte[], byte[]> m = new LinkedHashMap<>();
    put(m, FORMAT_VERSION, Integer.toString(formatVersion));
    put(m, TABLE, table);
    if (indexName != null) {
      put(m, INDEX_NAME, indexName);
    }
    put(m, GROUP_ATTRIBUTE, groupAttribute);
    put(m, GROUP_TYPE, groupType.name());
    List<Map<String, Object>> attrs = new ArrayList<>();
    for (KeyAttribute a : attributes) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("name", a.name());
      x.put("type", a.type().name());
      x.put("roles", a.roles());
      attrs.add(x);
    }
    try {
      put(m, ATTRIBUTES, JSON.writeValueAsString(attrs));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    return m;
  }

  /** The fields a finished build writes. */
  public Map<byte[], byte[]> buildFields() {
    Map<byte[], byte[]> m = new LinkedHashMap<>();
    put(m, BUILD_ID, buildId);
    put(m, FINISHED_AT, Long.toString(finishedAtMillis));
    put(m, ENTRIES, Long.toString(entries));
    put(m, GROUPS, Long.toString(groups));
    return m;
  }

  /**
   * Reads a meta hash as HGETALL returns it; throws {@link IllegalArgumentException} naming the problem when it is
   * not one this reader understands (another format version, missing or corrupt fields).
   */
  public static RedisIndexMeta fromHash(Map<byte[], byte[]> hash) {
    Map<String, String> h = new LinkedHashMap<>();
    hash.forEach((k, v) -> h.put(new String(k, StandardCharsets.UTF_8), new String(v, StandardCharsets.UTF_8)));
    String version = h.get(FORMAT_VERSION);
    if (!Integer.toString(RedisLayout.FORMAT_VERSION).equals(version)) {
      throw new IllegalArgumentException("Redis index format version " + version + " is not supported (this version"
          + " of pagemark reads and writes version " + RedisLayout.FORMAT_VERSION + "); load the index again with"
          + " pagemark backfill ... --redis=ADDRESS, under another --redisKeyPrefix or after deleting its keys");
    }
    try {
      List<KeyAttribute> attrs = new ArrayList<>();
      for (Map<String, Object> a : JSON.readValue(required(h, ATTRIBUTES),
          new TypeReference<List<Map<String, Object>>>() {})) {
        attrs.add(new KeyAttribute((String) a.get("name"), KeyType.fromDynamoName((String) a.get("type")),
            ((Number) a.get("roles")).intValue()));
      }
      String build = h.get(BUILD_ID);
      return new RedisIndexMeta(
          RedisLayout.FORMAT_VERSION,
          required(h, TABLE),
          h.get(INDEX_NAME),
          required(h, GROUP_ATTRIBUTE),
          KeyType.fromDynamoName(required(h, GROUP_TYPE)),
          attrs,
          build,
          build == null ? 0 : Long.parseLong(required(h, FINISHED_AT)),
          build == null ? 0 : Long.parseLong(required(h, ENTRIES)),
          build == null ? 0 : Long.parseLong(required(h, GROUPS)));
    } catch (JsonProcessingException | RuntimeException e) {
      throw new IllegalArgumentException("corrupt meta hash (" + e.getMessage() + ")", e);
    }
  }

  private static String required(Map<String, String> h, String field) {
    String v = h.get(field);
    if (v == null) {
      throw new IllegalArgumentException("field " + field + " is missing");
    }
    return v;
  }

  private static void put(Map<byte[], byte[]> m, String field, String value) {
    m.put(field.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
  }
}
