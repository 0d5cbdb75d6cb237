package io.pagemark.lookup.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import io.pagemark.format.jdbc.JdbcLayout;
import io.pagemark.format.jdbc.JdbcRecords;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * One build of a PostgreSQL index, opened for lookups: the build is resolved once ({@code index_meta.current_build},
 * or the build asked for), so every lookup through this object reads that build. A group is read in one read-only
 * REPEATABLE READ transaction on a pooled connection, from opening it to closing it, so its count and its records
 * come from one snapshot even while {@code pagemark commit} changes the group. Thread-safe.
 */
final class JdbcIndex implements Index {
  /** Connections a process keeps at most for one index: lookups hold one each while a group is open. */
  static final int MAX_CONNECTIONS = 8;
  /** How long a lookup waits for a free connection of the pool. */
  static final long CONNECTION_TIMEOUT_MILLIS = 10_000;

  private final JdbcAddress address;
  private final JdbcIndexMeta meta;
  private final String buildId;
  private final HikariDataSource pool;
  private final String selectGroup;
  private final String selectEntry;

  private JdbcIndex(JdbcAddress address, JdbcIndexMeta meta, String buildId, HikariDataSource pool) {
    this.address = address;
    this.meta = meta;
    this.buildId = buildId;
    this.pool = pool;
    JdbcLayout layout = address.layout();
    this.selectGroup = "SELECT group_value, entries FROM " + layout.groups(buildId) + " WHERE group_key = ?";
    this.selectEntry = layout.selectEntry(buildId, meta.attributes().size());
  }

  /** Opens the current build, or {@code buildId} when it is given. */
  static JdbcIndex open(JdbcAddress address, String buildId) throws IOException {
    if (buildId != null) {
      IndexLayout.checkBuildId(buildId);
    }
    JdbcAddress.checkDriver();
    HikariDataSource pool = pool(address);
    try (Connection c = pool.getConnection()) {
      JdbcIndexMeta meta = JdbcIndexMeta.read(c, address);
      String build = buildId != null ? buildId : meta.currentBuild();
      if (build == null) {
        throw new IOException("the first build of the index in " + address + " has not been published yet");
      }
      if (!published(c, address, build)) {
        throw new IOException("build " + build + " is not a published build of the index in " + address
            + " (removed by pagemark gc, or still loading); list the builds with: SELECT * FROM "
            + address.layout().builds());
      }
      c.rollback();
      return new JdbcIndex(address, meta, build, pool);
    } catch (SQLException e) {
      pool.close();
      throw failure(address, "opening the index", e);
    } catch (IOException | RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  private static HikariDataSource pool(JdbcAddress address) throws IOException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(address.url());
    config.setDataSourceProperties(address.properties());
    config.setPoolName("pagemark-lookup");
    config.setMaximumPoolSize(MAX_CONNECTIONS);
    config.setMinimumIdle(1);
    // Set once per physical connection, so that a lookup costs no SET round trip: every group is read in a
    // read-only snapshot, begun by the driver with the first query and rolled back when the group is closed.
    config.setAutoCommit(false);
    config.setReadOnly(true);
    config.setTransactionIsolation("TRANSACTION_REPEATABLE_READ");
    config.setConnectionTimeout(CONNECTION_TIMEOUT_MILLIS);
    try {
      return new HikariDataSource(config);
    } catch (RuntimeException e) { // HikariPool.PoolInitializationException: the first connection failed
      Throwable cause = e.getCause();
      if (cause instanceof SQLException s) {
        throw new IOException(address.unreachable(s).getMessage(), s);
      }
      throw new IOException("cannot connect to PostgreSQL at " + address + ": " + e.getMessage(), e);
    }
  }

  private static boolean published(Connection c, JdbcAddress address, String build) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT state FROM " + address.layout().builds()
        + " WHERE build_id = ?")) {
      s.setString(1, build);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() && rs.getString(1).equals("published");
      }
    }
  }

  @Override
  public String buildId() {
    return buildId;
  }

  @Override
  public KeyType groupType() {
    return meta.groupType();
  }

  @Override
  public String groupAttribute() {
    return meta.groupAttribute();
  }

  @Override
  public String sortAttribute() {
    return meta.attributes().get(0).name();
  }

  @Override
  public GroupPages group(KeyValue key) throws IOException, GroupNotFoundException {
    if (key.type() != groupType()) {
      throw new IllegalArgumentException(
          "group keys of this index are of type " + groupType() + ", not " + key.type());
    }
    Connection c = connection();
    try {
      byte[] groupKey = JdbcRecords.groupKey(key);
      KeyValue stored;
      long count;
      try (PreparedStatement s = c.prepareStatement(selectGroup)) {
        s.setBytes(1, groupKey);
        try (ResultSet rs = s.executeQuery()) {
          if (!rs.next()) {
            throw new GroupNotFoundException("group " + key + " is not in build " + buildId + " of the index in "
                + address);
          }
          stored = KeyValue.of(groupType(), rs.getBytes(1));
          count = rs.getLong(2);
        }
      }
      if (count < 1) {
        throw new IOException(this + ": group " + key + " has " + count + " entries (a group row pagemark did not"
            + " write); run the backfill again");
      }
      return new GroupPages(new JdbcGroup(this, c, groupKey, stored, count));
    } catch (SQLException e) {
      close(c);
      throw failure(address, "opening group " + key + " of build " + buildId, e);
    } catch (IOException | GroupNotFoundException | RuntimeException e) {
      close(c);
      throw e;
    }
  }

  /** The groups of the build, read from its group table, in no particular order. */
  @Override
  public List<KeyValue> groups() throws IOException {
    List<KeyValue> out = new ArrayList<>();
    try (Connection c = connection();
        PreparedStatement s = c.prepareStatement("SELECT group_value FROM " + address.layout().groups(buildId))) {
      s.setFetchSize(10_000); // a cursor, not the whole table in memory at once
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          out.add(KeyValue.of(groupType(), rs.getBytes(1)));
        }
      }
      c.rollback();
    } catch (SQLException e) {
      throw failure(address, "listing the groups of build " + buildId, e);
    }
    return out;
  }

  JdbcIndexMeta meta() {
    return meta;
  }

  String selectEntry() {
    return selectEntry;
  }

  private Connection connection() throws IOException {
    try {
      return pool.getConnection();
    } catch (SQLException e) {
      throw failure(address, "taking a connection", e);
    }
  }

  static void close(Connection c) {
    try {
      c.close();
    } catch (SQLException e) {
      // the pool discards a connection it cannot reset
    }
  }

  /** An IOException for a failed statement, naming the index, the build and what to do. */
  IOException failure(String what, SQLException e) {
    return failure(address, what, e);
  }

  private static IOException failure(JdbcAddress address, String what, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (state.equals("42P01")) { // undefined table
      return new IOException(what + " failed: the build's tables are gone from " + address + " (removed by"
          + " pagemark gc or by a newer build's pruning); open the index again", e);
    }
    if (state.startsWith("08")) {
      return new IOException(what + " failed: lost the connection to PostgreSQL at " + address + ": "
          + e.getMessage(), e);
    }
    return new IOException(what + " in " + address + " failed: " + e.getMessage(), e);
  }

  @Override
  public void close() {
    pool.close();
  }

  /** {@code jdbc:postgresql://HOST:PORT/DB schema "S" build B}. */
  @Override
  public String toString() {
    return address + " build " + buildId;
  }
}
