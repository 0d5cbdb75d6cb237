package io.pagemark.format.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import java.io.IOException;
import java.io.Serializable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

/**
 * The {@code index_meta} row of a PostgreSQL index: what it indexes, which attributes each entry stores, and the
 * build readers open ({@code current_build}, null until the first build is published).
 *
 * @param attributes the stored attributes, the index sort key first
 */
public record JdbcIndexMeta(String table, String indexName, String groupAttribute, KeyType groupType,
    List<KeyAttribute> attributes, String currentBuild) implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  public JdbcIndexMeta {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(groupAttribute, "groupAttribute");
    Objects.requireNonNull(groupType, "groupType");
    attributes = List.copyOf(attributes);
    JdbcLayout.checkAttributes(attributes);
  }

  /** What this index was built on, for messages: {@code table comments, GSI byProduct (PK2, SK)}. */
  public String describe() {
    return "table " + table + (indexName == null ? "" : ", GSI " + indexName) + " (" + groupAttribute + ", "
        + attributes.get(0).name() + ")";
  }

  /** Whether two metas describe the same index (the current build aside). */
  public boolean sameIndex(JdbcIndexMeta o) {
    return table.equals(o.table) && Objects.equals(indexName, o.indexName) && groupAttribute.equals(o.groupAttribute)
        && groupType == o.groupType && attributes.equals(o.attributes);
  }

  /**
   * Reads the meta row; throws an {@link IOException} that says what is missing when the schema holds no pagemark
   * index, or one of another format version.
   */
  public static JdbcIndexMeta read(Connection c, JdbcAddress address) throws IOException, SQLException {
    JdbcLayout layout = address.layout();
    try (PreparedStatement s = c.prepareStatement("SELECT format_version, table_name, index_name, group_attribute,"
        + " group_type, attributes, current_build FROM " + layout.meta());
        ResultSet rs = s.executeQuery()) {
      if (!rs.next()) {
        throw new IOException("no pagemark index in " + address + " (load one with: pagemark backfill ... --jdbcUrl="
            + JdbcAddress.redact(address.url()) + ")");
      }
      int version = rs.getInt(1);
      if (version != JdbcLayout.FORMAT_VERSION) {
        throw new IOException("the index in " + address + " has format version " + version + "; this pagemark"
            + " reads version " + JdbcLayout.FORMAT_VERSION);
      }
      try {
        return new JdbcIndexMeta(rs.getString(2), rs.getString(3), rs.getString(4),
            KeyType.fromDynamoName(rs.getString(5)), attributes(rs.getString(6)), rs.getString(7));
      } catch (IllegalArgumentException | JsonProcessingException e) {
        throw new IOException("the index_meta row of " + address + " is damaged: " + e.getMessage(), e);
      }
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState()) || "3F000".equals(e.getSQLState())) { // undefined table or schema
        throw new IOException("no pagemark index in " + address + " (load one with: pagemark backfill ..."
            + " --jdbcUrl=" + JdbcAddress.redact(address.url())
            + (address.schema().equals(JdbcLayout.DEFAULT_SCHEMA) ? "" : " --jdbcSchema=" + address.schema())
            + ")", e);
      }
      throw e;
    }
  }

  /**
   * Records this index's schema in a fresh meta row, or checks that the row there is the same index. Throws
   * {@link IllegalArgumentException} when the schema holds another index.
   */
  public void checkOrInsert(Connection c, JdbcAddress address) throws SQLException, IOException {
    JdbcLayout layout = address.layout();
    try (PreparedStatement s = c.prepareStatement("INSERT INTO " + layout.meta() + " (format_version, table_name,"
        + " index_name, group_attribute, group_type, attributes) VALUES (?, ?, ?, ?, ?, ?)"
        + " ON CONFLICT (singleton) DO NOTHING")) {
      s.setInt(1, JdbcLayout.FORMAT_VERSION);
      s.setString(2, table);
      s.setString(3, indexName);
      s.setString(4, groupAttribute);
      s.setString(5, groupType.name());
      s.setString(6, attributesJson());
      s.executeUpdate();
    }
    JdbcIndexMeta there = read(c, address);
    if (!sameIndex(there)) {
      throw new IllegalArgumentException(address + " holds the index of " + there.describe() + ", not of "
          + describe() + "; give another --jdbcSchema");
    }
  }

  String attributesJson() {
    try {
      return JSON.writeValueAsString(attributes.stream().map(BuildInfo.Attribute::of).toList());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<KeyAttribute> attributes(String json) throws JsonProcessingException {
    List<BuildInfo.Attribute> list = JSON.readValue(json, new TypeReference<List<BuildInfo.Attribute>>() {});
    return list.stream().map(BuildInfo.Attribute::toKeyAttribute).toList();
  }
}
