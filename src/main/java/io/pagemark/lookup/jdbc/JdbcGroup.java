package io.pagemark.lookup.jdbc;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.jdbc.JdbcRecords;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.RankedGroup;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * One group of a PostgreSQL build as a {@link RankedGroup}: the record at rank i is one primary-key seek,
 * {@code WHERE group_key = ? AND rank = ?}, through one prepared statement, in the snapshot the group was opened in.
 * Holds its pooled connection until closed. Not thread-safe (a lookup's pages are read by one thread).
 */
final class JdbcGroup implements RankedGroup {
  private final JdbcIndex index;
  private final Connection connection;
  private final byte[] groupKey;
  private final KeyValue group;
  private final long count;
  private PreparedStatement select;

  JdbcGroup(JdbcIndex index, Connection connection, byte[] groupKey, KeyValue group, long count) {
    this.index = index;
    this.connection = connection;
    this.groupKey = groupKey;
    this.group = group;
    this.count = count;
  }

  @Override
  public KeyValue group() {
    return group;
  }

  @Override
  public String groupAttribute() {
    return index.groupAttribute();
  }

  @Override
  public List<KeyAttribute> attributes() {
    return index.meta().attributes();
  }

  @Override
  public String buildId() {
    return index.buildId();
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public IndexRecord record(long rank) throws IOException {
    if (rank < 0 || rank >= count) {
      throw new IndexOutOfBoundsException("rank " + rank + " of " + count);
    }
    try {
      if (select == null) {
        select = connection.prepareStatement(index.selectEntry());
        select.setBytes(1, groupKey);
      }
      select.setLong(2, rank);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new IOException(index + ": group " + group + " has no entry at rank " + rank + " although it has "
              + count + " (the table was changed by something else than pagemark); run the backfill again");
        }
        return JdbcRecords.readRecord(rs, 1, attributes());
      }
    } catch (SQLException e) {
      throw index.failure("reading rank " + rank + " of group " + group, e);
    } catch (IllegalArgumentException e) {
      throw new IOException(index + ": corrupt entry at rank " + rank + " of group " + group + " ("
          + e.getMessage() + ")", e);
    }
  }

  @Override
  public void close() {
    // Closing the connection ends the group's read-only transaction and returns the connection to the pool.
    JdbcIndex.close(connection);
  }
}
