package io.pagemark.format.jdbc;

import io.pagemark.format.BuildCollector;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.KeyAttribute;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The life of a build in a PostgreSQL index: registered as loading with empty tables ({@link #begin}), filled by the
 * sink, published in one transaction that moves {@code index_meta.current_build} ({@link #publish}), and dropped
 * when it is old ({@link #collect}). Readers open the current build only, so they see the old build or the new one,
 * never a build being loaded. Every method runs on the caller's connection and leaves it in auto-commit.
 */
public final class JdbcBuilds {
  /** A build as the {@code builds} table lists it. */
  public record Build(String id, boolean published, long createdAtMillis) {}

  private final JdbcAddress address;
  private final JdbcLayout layout;

  public JdbcBuilds(JdbcAddress address) {
    this.address = address;
    this.layout = address.layout();
  }

  /**
   * Creates the index's tables if missing, checks (or records) what it indexes, registers the build as loading and
   * creates its tables. Safe to repeat for a build that is loading (a retried step, or a build run again under the
   * same id); throws {@link IllegalArgumentException} for a build that is already published or a schema holding
   * another index.
   */
  public void begin(Connection c, JdbcIndexMeta schema, String buildId, long createdAtMillis)
      throws SQLException, java.io.IOException {
    IndexLayout.checkBuildId(buildId);
    // Two first builds racing to create the schema: one waits for the other (CREATE ... IF NOT EXISTS is not atomic).
    inTransaction(c, () -> {
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_advisory_xact_lock(hashtext(" + literal(layout.schema()) + "))");
        for (String ddl : layout.createIndex()) {
          s.execute(ddl);
        }
      }
    });
    schema.checkOrInsert(c, address);
    try (PreparedStatement s = c.prepareStatement("INSERT INTO " + layout.builds()
        + " (build_id, state, created_at_millis) VALUES (?, 'loading', ?) ON CONFLICT (build_id) DO NOTHING")) {
      s.setString(1, buildId);
      s.setLong(2, createdAtMillis);
      s.executeUpdate();
    }
    if (state(c, buildId).equals("published")) {
      throw new IllegalArgumentException("build " + buildId + " is already published in " + address
          + "; a new build needs a new id");
    }
    try (Statement s = c.createStatement()) {
      for (String ddl : layout.createBuild(buildId, schema.attributes())) {
        s.execute(ddl);
      }
    }
  }

  /**
   * Publishes a loaded build: in one transaction, records its counts and makes it the current build. Readers that
   * open the index afterwards read it; readers that opened it before keep their build. Publishing a build again is a
   * no-op.
   */
  public void publish(Connection c, String buildId, BuildInfo.Counts counts, long nowMillis) throws SQLException {
    inTransaction(c, () -> {
      try (PreparedStatement lock = c.prepareStatement("SELECT current_build FROM " + layout.meta() + " FOR UPDATE");
          ResultSet rs = lock.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("the index_meta row of " + address + " is gone; run the backfill again");
        }
      }
      try (PreparedStatement s = c.prepareStatement("UPDATE " + layout.builds() + " SET state = 'published',"
          + " published_at_millis = coalesce(published_at_millis, ?), items_scanned = ?, entries = ?, groups = ?,"
          + " skipped_no_group_key = ?, skipped_no_sort_key = ?, dead_letters = ?, tie_runs = ?,"
          + " tie_runs_unresolved = ? WHERE build_id = ?")) {
        s.setLong(1, nowMillis);
        s.setLong(2, counts.itemsScanned());
        s.setLong(3, counts.entries());
        s.setLong(4, counts.groups());
        s.setLong(5, counts.skippedNoGroupKey());
        s.setLong(6, counts.skippedNoSortKey());
        s.setLong(7, counts.deadLetters());
        s.setLong(8, counts.tieRuns());
        s.setLong(9, counts.tieRunsUnresolved());
        s.setString(10, buildId);
        if (s.executeUpdate() != 1) {
          throw new SQLException("build " + buildId + " is not registered in " + address + " (was it removed by"
              + " pagemark gc while it loaded?); run the backfill again");
        }
      }
      try (PreparedStatement s = c.prepareStatement("UPDATE " + layout.meta() + " SET current_build = ?")) {
        s.setString(1, buildId);
        s.executeUpdate();
      }
    });
  }

  /** Every build, oldest first (by creation time, then id). */
  public List<Build> list(Connection c) throws SQLException {
    List<Build> out = new ArrayList<>();
    try (PreparedStatement s = c.prepareStatement("SELECT build_id, state, created_at_millis FROM " + layout.builds()
        + " ORDER BY created_at_millis, build_id");
        ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        out.add(new Build(rs.getString(1), rs.getString(2).equals("published"), rs.getLong(3)));
      }
    }
    return out;
  }

  /** The current build, or null when none is published yet. */
  public String current(Connection c) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT current_build FROM " + layout.meta());
        ResultSet rs = s.executeQuery()) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /**
   * Drops published builds beyond the newest {@code keep}, never the current one nor one younger than
   * {@code grace} (a reader may be pinned to it); with {@code abandoned}, also loading builds older than
   * {@code grace} (what a killed backfill left). Each build's tables and row go in one transaction.
   */
  public BuildCollector.Result collect(Connection c, int keep, Duration grace, long nowMillis, boolean abandoned)
      throws SQLException {
    if (keep < 1) {
      throw new IllegalArgumentException("keep must be at least 1, not " + keep);
    }
    String current = current(c);
    List<Build> builds = list(c);
    List<Build> published = builds.stream().filter(Build::published).toList();
    List<String> removed = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    List<String> removedLoading = new ArrayList<>();
    for (int i = 0; i < published.size(); i++) {
      Build b = published.get(i);
      boolean newest = i >= published.size() - keep;
      if (newest || b.id().equals(current) || nowMillis - b.createdAtMillis() < grace.toMillis()) {
        kept.add(b.id());
      } else {
        drop(c, b.id());
        removed.add(b.id());
      }
    }
    if (abandoned) {
      for (Build b : builds) {
        if (!b.published() && nowMillis - b.createdAtMillis() >= grace.toMillis()) {
          drop(c, b.id());
          removedLoading.add(b.id());
        }
      }
    }
    return new BuildCollector.Result(removed, kept, removedLoading);
  }

  private void drop(Connection c, String buildId) throws SQLException {
    inTransaction(c, () -> {
      try (Statement s = c.createStatement()) {
        for (String ddl : layout.dropBuild(buildId)) {
          s.execute(ddl);
        }
      }
      try (PreparedStatement s = c.prepareStatement("DELETE FROM " + layout.builds() + " WHERE build_id = ?")) {
        s.setString(1, buildId);
        s.executeUpdate();
      }
    });
  }

  private String state(Connection c, String buildId) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT state FROM " + layout.builds() + " WHERE build_id = ?")) {
      s.setString(1, buildId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("build " + buildId + " vanished from " + address + " while it was registered");
        }
        return rs.getString(1);
      }
    }
  }

  /** Work that commits together or not at all. */
  public interface Work {
    void run() throws SQLException;
  }

  /** Runs {@code work} in one transaction on {@code c}, then returns the connection to auto-commit. */
  public static void inTransaction(Connection c, Work work) throws SQLException {
    c.setAutoCommit(false);
    try {
      work.run();
      c.commit();
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /** A string as an SQL literal (for the few statements that take no parameters, such as advisory locks). */
  static String literal(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
