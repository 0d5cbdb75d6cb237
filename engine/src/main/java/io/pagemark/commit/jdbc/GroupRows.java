package io.pagemark.commit.jdbc;

import io.pagemark.commit.IndexCommit;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import io.pagemark.format.jdbc.JdbcLayout;
import io.pagemark.format.jdbc.JdbcRecords;
import io.pagemark.key.KeyValue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One group's rows in the current build of a PostgreSQL index, inside the commit's transaction for the group: its
 * records and ledger, read with the group's rows locked, and written back from the first rank that changes on. The
 * current build is read with {@code index_meta} locked for share, so a publish waits until the group is committed.
 */
final class GroupRows {
  private final Connection c;
  private final JdbcAddress address;
  private final JdbcLayout layout;
  private final JdbcIndexMeta meta;
  private final String build;
  private final long createdAtMillis;
  private final KeyValue group;
  private final byte[] groupKey;

  private GroupRows(Connection c, JdbcAddress address, JdbcIndexMeta meta, String build, long createdAtMillis,
      KeyValue group) {
    this.c = c;
    this.address = address;
    this.layout = address.layout();
    this.meta = meta;
    this.build = build;
    this.createdAtMillis = createdAtMillis;
    this.group = group;
    this.groupKey = JdbcRecords.groupKey(group);
  }

  /** The group in the current build; no publish moves the current build until the transaction ends. */
  static GroupRows ofCurrentBuild(Connection c, JdbcAddress address, JdbcIndexMeta meta, KeyValue group)
      throws SQLException {
    JdbcLayout layout = address.layout();
    String build;
    try (PreparedStatement s = c.prepareStatement("SELECT current_build FROM " + layout.meta() + " FOR SHARE");
        ResultSet rs = s.executeQuery()) {
      if (!rs.next() || rs.getString(1) == null) {
        throw new SQLException("the index in " + address + " has no current build");
      }
      build = rs.getString(1);
    }
    try (PreparedStatement s = c.prepareStatement("SELECT created_at_millis FROM " + layout.builds()
        + " WHERE build_id = ?")) {
      s.setString(1, build);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("build " + build + " is current but not listed in " + layout.builds());
        }
        return new GroupRows(c, address, meta, build, rs.getLong(1), group);
      }
    }
  }

  String build() {
    return build;
  }

  /** Changes created before this are in the build already: its backfill began after them. */
  long horizonMicros() {
    return TimeUnit.MILLISECONDS.toMicros(createdAtMillis) - IndexCommit.BACKFILL_MARGIN_MICROS;
  }

  /** The group's stored version ledger (locked), or null when no commit changed the group in this build yet. */
  byte[] ledger() throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT ledger FROM " + layout.ledgers(build)
        + " WHERE group_key = ? FOR UPDATE")) {
      s.setBytes(1, groupKey);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? rs.getBytes(1) : null;
      }
    }
  }

  /** The group's records in rank order (empty for a group the build does not have), its group row locked. */
  List<IndexRecord> records() throws SQLException {
    long count;
    try (PreparedStatement s = c.prepareStatement("SELECT entries FROM " + layout.groups(build)
        + " WHERE group_key = ? FOR UPDATE")) {
      s.setBytes(1, groupKey);
      try (ResultSet rs = s.executeQuery()) {
        count = rs.next() ? rs.getLong(1) : 0;
      }
    }
    List<IndexRecord> out = new ArrayList<>((int) Math.min(count, 1 << 20));
    int n = meta.attributes().size();
    try (PreparedStatement s = c.prepareStatement("SELECT rank, " + String.join(", ", JdbcLayout.keyColumns(n))
        + ", tie_position, run_length, run_order_known, descending_slot FROM " + layout.entries(build)
        + " WHERE group_key = ? ORDER BY rank")) {
      s.setFetchSize(10_000);
      s.setBytes(1, groupKey);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          if (rs.getLong(1) != out.size()) {
            throw new SQLException(this + " has no entry at rank " + out.size() + "; run the backfill again");
          }
          out.add(JdbcRecords.readRecord(rs, 2, meta.attributes()));
        }
      }
    }
    if (out.size() != count) {
      throw new SQLException(this + " has " + out.size() + " entries but its group row says " + count
          + "; run the backfill again");
    }
    return out;
  }

  /**
   * Replaces the group's rows from rank {@code first} on with {@code merged}'s, and its group row and the build's
   * counts; returns the rows deleted.
   */
  long rewrite(List<IndexRecord> base, List<IndexRecord> merged, int first) throws SQLException {
    long removed = 0;
    if (first < base.size()) {
      try (PreparedStatement s = c.prepareStatement("DELETE FROM " + layout.entries(build)
          + " WHERE group_key = ? AND rank >= ?")) {
        s.setBytes(1, groupKey);
        s.setLong(2, first);
        removed = s.executeUpdate();
      }
    }
    if (first < merged.size()) {
      try (PreparedStatement s = c.prepareStatement(layout.insertEntry(build, meta.attributes().size()))) {
        int batched = 0;
        for (int rank = first; rank < merged.size(); rank++) {
          JdbcRecords.bindEntry(s, groupKey, rank, merged.get(rank), meta.attributes());
          s.addBatch();
          if (++batched == 1_000) {
            s.executeBatch();
            batched = 0;
          }
        }
        if (batched > 0) {
          s.executeBatch();
        }
      }
    }
    writeGroup(merged, base.size());
    return removed;
  }

  /** The group's row (removed when the group became empty) and the build's totals. */
  private void writeGroup(List<IndexRecord> records, long before) throws SQLException {
    long runs = 0;
    long unresolved = 0;
    for (IndexRecord r : records) {
      if (r.tiePosition() == 0 && r.runLength() > 1) {
        runs++;
        unresolved += r.runOrderKnown() ? 0 : 1;
      }
    }
    if (records.isEmpty()) {
      try (PreparedStatement s = c.prepareStatement("DELETE FROM " + layout.groups(build) + " WHERE group_key = ?")) {
        s.setBytes(1, groupKey);
        s.executeUpdate();
      }
    } else {
      try (PreparedStatement s = c.prepareStatement(layout.insertGroup(build))) {
        s.setBytes(1, groupKey);
        s.setBytes(2, group.bytes());
        s.setLong(3, records.size());
        s.setLong(4, runs);
        s.setLong(5, unresolved);
        s.executeUpdate();
      }
    }
    long groupDelta = (records.isEmpty() ? 0 : 1) - (before == 0 ? 0 : 1);
    try (PreparedStatement s = c.prepareStatement("UPDATE " + layout.builds() + " SET entries = entries + ?,"
        + " groups = groups + ? WHERE build_id = ?")) {
      s.setLong(1, records.size() - before);
      s.setLong(2, groupDelta);
      s.setString(3, build);
      s.executeUpdate();
    }
  }

  /** Stores the group's ledger after the changes. */
  void writeLedger(byte[] ledger) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("INSERT INTO " + layout.ledgers(build) + " (group_key, ledger)"
        + " VALUES (?, ?) ON CONFLICT (group_key) DO UPDATE SET ledger = EXCLUDED.ledger")) {
      s.setBytes(1, groupKey);
      s.setBytes(2, ledger);
      s.executeUpdate();
    }
  }

  /** {@code group {"S":"x"} of jdbc:postgresql://... schema "S" build B}. */
  @Override
  public String toString() {
    return "group " + group + " of " + address + " build " + build;
  }
}
