package io.pagemark.format.jdbc;

import io.pagemark.format.IndexLayout;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The tables of one PostgreSQL index, all in one schema {@code S} (format version {@value #FORMAT_VERSION}; the
 * specification is {@code docs/postgresql.md}):
 *
 * <pre>
 * S.index_meta         one row: format version, table, GSI, group attribute and type, stored attributes (JSON),
 *                      current_build: the build readers open (moved in one transaction when a build is published)
 * S.builds             one row per build: state (loading, published), creation time, counts
 * S."entries_BUILD"    one row per entry: PRIMARY KEY (group_key, rank); the stored key values; the run fields
 * S."groups_BUILD"     one row per group: its key as stored, its entry count, its runs of equal sort keys
 * S."ledgers_BUILD"    one row per group the change stream changed: its version ledger (see pagemark commit)
 * </pre>
 *
 * {@code group_key} is the group key's canonical bytes ({@code KeyValue.sortableBytes()}), so {@code 1.0} and
 * {@code 1} are one group as in DynamoDB. Strings and binaries are stored as {@code bytea} (a string as its UTF-8
 * bytes): {@code bytea} compares as unsigned bytes, which is DynamoDB's order whatever the database's encoding and
 * collation, and it holds U+0000, which PostgreSQL's {@code text} cannot. Numbers are {@code numeric}, exact to
 * their 38 digits. Group keys are only ever bound as parameters, never spliced into SQL; build ids, which name
 * tables, are checked by {@link IndexLayout#checkBuildId} and quoted.
 */
public final class JdbcLayout implements Serializable {
  private static final long serialVersionUID = 1L;
  /** The version of this layout; stored in {@code index_meta}. */
  public static final int FORMAT_VERSION = 1;
  /** The schema of an index unless one is named. */
  public static final String DEFAULT_SCHEMA = "pagemark";
  /** The columns of the stored attributes after the sort key, by position (a table key has at most two). */
  static final List<String> KEY_COLUMNS = List.of("sort_key", "key_1", "key_2");

  private final String schema;

  /** @throws IllegalArgumentException for a schema name PostgreSQL cannot hold (empty, over 63 bytes, NUL) */
  public JdbcLayout(String schema) {
    if (schema == null || schema.isEmpty() || schema.getBytes(StandardCharsets.UTF_8).length > 63
        || schema.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a PostgreSQL schema name is 1 to 63 bytes without NUL, not \""
          + schema + "\"");
    }
    this.schema = schema;
  }

  public String schema() {
    return schema;
  }

  /** An identifier quoted for SQL: {@code "a""b"}. */
  static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  public String meta() {
    return quote(schema) + ".index_meta";
  }

  public String builds() {
    return quote(schema) + ".builds";
  }

  public String entries(String buildId) {
    return table("entries_", buildId);
  }

  public String groups(String buildId) {
    return table("groups_", buildId);
  }

  public String ledgers(String buildId) {
    return table("ledgers_", buildId);
  }

  private String table(String kind, String buildId) {
    return quote(schema) + "." + quote(kind + IndexLayout.checkBuildId(buildId));
  }

  /** The statements that create the schema and the index's own tables, if missing. */
  public List<String> createIndex() {
    return List.of(
        "CREATE SCHEMA IF NOT EXISTS " + quote(schema),
        "CREATE TABLE IF NOT EXISTS " + meta() + " ("
            + "singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), "
            + "format_version integer NOT NULL, table_name text NOT NULL, index_name text, "
            + "group_attribute text NOT NULL, group_type text NOT NULL, attributes text NOT NULL, "
            + "current_build text)",
        "CREATE TABLE IF NOT EXISTS " + builds() + " ("
            + "build_id text PRIMARY KEY, state text NOT NULL CHECK (state IN ('loading', 'published')), "
            + "created_at_millis bigint NOT NULL, published_at_millis bigint, items_scanned bigint, entries bigint, "
            + "groups bigint, skipped_no_group_key bigint, skipped_no_sort_key bigint, dead_letters bigint, "
            + "tie_runs bigint, tie_runs_unresolved bigint)");
  }

  /** The statements that create a build's tables, if missing, for an index storing these attributes. */
  public List<String> createBuild(String buildId, List<KeyAttribute> attributes) {
    checkAttributes(attributes);
    StringBuilder cols = new StringBuilder("group_key bytea NOT NULL, rank bigint NOT NULL");
    for (int i = 0; i < attributes.size(); i++) {
      cols.append(", ").append(KEY_COLUMNS.get(i)).append(' ').append(sqlType(attributes.get(i).type()))
          .append(" NOT NULL");
    }
    cols.append(", tie_position integer NOT NULL, run_length integer NOT NULL, run_order_known boolean NOT NULL,"
        + " descending_slot integer NOT NULL, PRIMARY KEY (group_key, rank)");
    return List.of(
        "CREATE TABLE IF NOT EXISTS " + entries(buildId) + " (" + cols + ")",
        "CREATE TABLE IF NOT EXISTS " + groups(buildId) + " (group_key bytea PRIMARY KEY, group_value bytea NOT NULL,"
            + " entries bigint NOT NULL, tie_runs bigint NOT NULL, tie_runs_unresolved bigint NOT NULL)",
        "CREATE TABLE IF NOT EXISTS " + ledgers(buildId) + " (group_key bytea PRIMARY KEY, ledger bytea NOT NULL)");
  }

  /** The statements that drop a build's tables. */
  public List<String> dropBuild(String buildId) {
    return List.of("DROP TABLE IF EXISTS " + entries(buildId), "DROP TABLE IF EXISTS " + groups(buildId),
        "DROP TABLE IF EXISTS " + ledgers(buildId));
  }

  /** The key value columns of an entry row, the sort key first. */
  public static List<String> keyColumns(int attributes) {
    return KEY_COLUMNS.subList(0, attributes);
  }

  /** Every column of an entry row in {@link JdbcRecords}' order: group key, rank, key values, run fields. */
  public static String entryColumns(int attributes) {
    List<String> c = new ArrayList<>(List.of("group_key", "rank"));
    c.addAll(keyColumns(attributes));
    c.addAll(List.of("tie_position", "run_length", "run_order_known", "descending_slot"));
    return String.join(", ", c);
  }

  /**
   * An idempotent insert of one entry row: a row already at its (group, rank) is replaced, so that a retried bundle
   * adds nothing and a build run again under the same id (after a crash) holds what the second run wrote.
   */
  public String insertEntry(String buildId, int attributes) {
    List<String> set = new ArrayList<>();
    for (String c : keyColumns(attributes)) {
      set.add(c + " = EXCLUDED." + c);
    }
    for (String c : List.of("tie_position", "run_length", "run_order_known", "descending_slot")) {
      set.add(c + " = EXCLUDED." + c);
    }
    return "INSERT INTO " + entries(buildId) + " (" + entryColumns(attributes) + ") VALUES ("
        + String.join(", ", java.util.Collections.nCopies(2 + attributes + 4, "?"))
        + ") ON CONFLICT (group_key, rank) DO UPDATE SET " + String.join(", ", set);
  }

  /** One record by its group and rank: a seek on the primary key. Parameters: group key, rank. */
  public String selectEntry(String buildId, int attributes) {
    return "SELECT " + String.join(", ", keyColumns(attributes))
        + ", tie_position, run_length, run_order_known, descending_slot FROM " + entries(buildId)
        + " WHERE group_key = ? AND rank = ?";
  }

  /** An idempotent insert of one group row (replaced when there, as {@link #insertEntry}). */
  public String insertGroup(String buildId) {
    return "INSERT INTO " + groups(buildId) + " (group_key, group_value, entries, tie_runs, tie_runs_unresolved)"
        + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (group_key) DO UPDATE SET group_value = EXCLUDED.group_value,"
        + " entries = EXCLUDED.entries, tie_runs = EXCLUDED.tie_runs,"
        + " tie_runs_unresolved = EXCLUDED.tie_runs_unresolved";
  }

  /** The SQL type of a key value: {@code numeric} for numbers, {@code bytea} for strings and binaries. */
  static String sqlType(KeyType t) {
    return t == KeyType.N ? "numeric" : "bytea";
  }

  static void checkAttributes(List<KeyAttribute> attributes) {
    if (attributes.isEmpty() || attributes.size() > KEY_COLUMNS.size()) {
      throw new IllegalArgumentException("an index stores 1 to 3 key attributes, not " + attributes.size());
    }
  }

  @Override
  public String toString() {
    return "schema " + quote(schema);
  }
}
