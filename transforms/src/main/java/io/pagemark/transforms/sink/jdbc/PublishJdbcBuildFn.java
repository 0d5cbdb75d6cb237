package io.pagemark.transforms.sink.jdbc;

import io.pagemark.format.BuildCollector;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.jdbc.JdbcBuilds;
import io.pagemark.format.jdbc.JdbcLayout;
import io.pagemark.transforms.Published;
import io.pagemark.transforms.BuildContext.ScanCounts;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * The load's last step, run once after every entry and group row is written: checks that PostgreSQL holds exactly
 * the build's entries and groups (a retried bundle added none; a row left by an earlier run of the same build id
 * with other data is caught) and that every item scanned is accounted for, analyzes the build's tables, publishes the
 * build in one transaction, and drops published builds beyond the newest {@code keepBuilds}.
 */
final class PublishJdbcBuildFn extends DoFn<String, Published> {
  /** Builds younger than this are never dropped by a publish (readers may be pinned to them); see pagemark gc. */
  static final Duration PRUNE_GRACE = Duration.ofMinutes(10);

  private final JdbcTarget target;
  private final PCollectionView<Iterable<GroupRow>> groups;
  private final ScanCounts counts;

  PublishJdbcBuildFn(JdbcTarget target, PCollectionView<Iterable<GroupRow>> groups, ScanCounts counts) {
    this.target = target;
    this.groups = groups;
    this.counts = counts;
  }

  @ProcessElement
  public void process(ProcessContext c) throws IOException, SQLException {
    String buildId = target.buildId();
    long groupCount = 0;
    long entries = 0;
    long tieRuns = 0;
    long unresolved = 0;
    for (GroupRow g : c.sideInput(groups)) {
      groupCount++;
      entries += g.entries();
      tieRuns += g.tieRuns();
      unresolved += g.tieRunsUnresolved();
    }
    BuildInfo.Counts counts = this.counts.counted(c, buildId, entries, groupCount, tieRuns, unresolved);
    JdbcLayout layout = target.address().layout();
    BuildCollector.Result pruned;
    try (Connection conn = target.address().connect()) {
      long rows = count(conn, "SELECT count(*) FROM " + layout.entries(buildId));
      long groupRows = count(conn, "SELECT count(*) FROM " + layout.groups(buildId));
      if (rows != entries || groupRows != groupCount) {
        throw new IllegalStateException("build " + buildId + " in " + target.address() + " holds " + rows
            + " entries in " + groupRows + " groups, but this run wrote " + entries + " in " + groupCount
            + " (an earlier run of the same build id with other data left rows behind?); nothing was published;"
            + " run the backfill again under a new build id");
      }
      try (Statement s = conn.createStatement()) {
        s.execute("ANALYZE " + layout.entries(buildId));
        s.execute("ANALYZE " + layout.groups(buildId));
      }
      JdbcBuilds builds = new JdbcBuilds(target.address());
      builds.publish(conn, buildId, counts, System.currentTimeMillis());
      pruned = builds.collect(conn, target.keepBuilds(), PRUNE_GRACE, System.currentTimeMillis(), false);
    }
    String where = "PostgreSQL at " + target.address();
    c.output(new Published(where, buildId, groupCount, entries, String.format(
        "published build %s to %s: %,d entries in %,d groups, %,d runs of equal sort keys; dropped %,d old build%s",
        buildId, where, entries, groupCount, tieRuns, pruned.removed().size(),
        pruned.removed().size() == 1 ? "" : "s")));
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
