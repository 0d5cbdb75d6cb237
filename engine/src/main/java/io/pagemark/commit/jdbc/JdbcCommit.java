package io.pagemark.commit.jdbc;

import io.pagemark.change.IndexChange;
import io.pagemark.commit.IndexCommit;
import io.pagemark.commit.PendingChanges;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcBuilds;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import io.pagemark.key.KeyValue;
import io.pagemark.order.DynamoTieOrder;
import io.pagemark.order.TieOrder;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark commit --index=jdbc:postgresql://...}: applies the pending WAL segments of a change stream to the
 * current build of a PostgreSQL index, group by group, each group in one transaction: its ledger, its rows from the
 * first rank that changes on (new ranks for the rest of the group), its count. The merge rules are the file commit's
 * ({@link PendingChanges}, {@link io.pagemark.order.GroupRecords}); a reader reads a group in one snapshot, so it
 * sees the group before or after a commit, never between. A group's segments are deleted once its transaction has
 * committed; a crash in between applies them again, which changes nothing (the ledger knows their versions). One
 * commit runs at a time per index (a PostgreSQL advisory lock), and a backfill's publish waits for the group being
 * committed.
 *
 * <p>Immutable; the {@code withX} methods return new configurations.
 */
public final class JdbcCommit {
  /**
   * What a commit did.
   *
   * @param buildId the build the changes were applied to (null when nothing was pending)
   * @param groupsChanged groups whose rows changed (including groups that became empty, or new)
   * @param rowsWritten entry rows written anew (the changed groups from their first changed rank on)
   */
  public record Result(String buildId, long segments, long changes, long applied, long stale, long groupsChanged,
      long rowsWritten, long lagMillisP50, long lagMillisP95, long millis) {
    public boolean nothingToCommit() {
      return segments == 0;
    }
  }

  private final JdbcAddress address;
  private final Path walRoot;
  private final String group;
  private final DynamoConnection connection;
  private final Duration dedupeWindow;
  private final PrintStream progress;
  private final TieOrder ties;

  private JdbcCommit(JdbcAddress address, Path walRoot, String group, DynamoConnection connection,
      Duration dedupeWindow, PrintStream progress, TieOrder ties) {
    this.address = address;
    this.walRoot = walRoot;
    this.group = group;
    this.connection = connection;
    this.dedupeWindow = dedupeWindow;
    this.progress = progress;
    this.ties = ties;
  }

  /**
   * A commit of the WAL under {@code walRoot} (the directory a stream writes with {@code --output}: its
   * {@code wal/} folder) into the PostgreSQL index at {@code address}; no DynamoDB.
   */
  public static JdbcCommit of(JdbcAddress address, Path walRoot) {
    return new JdbcCommit(Objects.requireNonNull(address, "address"), walRoot.toAbsolutePath().normalize(), null,
        null, IndexCommit.DEFAULT_DEDUPE_WINDOW, null, null);
  }

  /** Commits only this group (text for S, decimal for N, base64 for B); other pending groups wait. */
  public JdbcCommit withGroup(String text) {
    return new JdbcCommit(address, walRoot, text, connection, dedupeWindow, progress, ties);
  }

  /** Learns DynamoDB's order of the runs of equal sort keys the changes touch (as the backfill does). */
  public JdbcCommit withTieResolution(DynamoConnection c) {
    return new JdbcCommit(address, walRoot, group, c, dedupeWindow, progress, ties);
  }

  /** How long the versions of applied changes are kept to recognize duplicates and replays. */
  public JdbcCommit withDedupeWindow(Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("the dedupe window must be positive, not " + d);
    }
    return new JdbcCommit(address, walRoot, group, connection, d, progress, ties);
  }

  /** Where to print progress lines (null: none). */
  public JdbcCommit withProgress(PrintStream out) {
    return new JdbcCommit(address, walRoot, group, connection, dedupeWindow, out, ties);
  }

  /** Orders equal sort keys with this instead of DynamoDB (tests). */
  public JdbcCommit withTies(TieOrder t) {
    return new JdbcCommit(address, walRoot, group, connection, dedupeWindow, progress, t);
  }

  /**
   * Runs the commit. Throws {@link NoSuchFileException} when the index has no published build yet (run a backfill
   * first; the WAL keeps the changes), {@link IllegalArgumentException} for a group that cannot be a key of this
   * index, and {@link IOException} for damaged segments (naming them) or a failing database.
   */
  public Result run() throws IOException {
    long started = System.nanoTime();
    try (Connection c = address.connect()) {
      JdbcIndexMeta meta = JdbcIndexMeta.read(c, address);
      if (meta.currentBuild() == null) {
        throw new NoSuchFileException(address.toString(), null, "no published build yet");
      }
      lock(c, true);
      try {
        return commit(c, meta, started);
      } finally {
        lock(c, false);
      }
    } catch (SQLException e) {
      throw new IOException("committing into " + address + " failed: " + e.getMessage(), e);
    }
  }

  private Result commit(Connection c, JdbcIndexMeta meta, long started) throws IOException, SQLException {
    Wal wal = new Wal(walRoot);
    List<Path> dirs;
    if (group == null) {
      dirs = wal.pendingGroupDirs();
    } else {
      Path dir = wal.groupDir(KeyValue.parse(meta.groupType(), group));
      dirs = Wal.segments(dir).isEmpty() ? List.of() : List.of(dir);
    }
    long segments = 0;
    long changes = 0;
    long applied = 0;
    long stale = 0;
    long groupsChanged = 0;
    long rows = 0;
    String build = null;
    List<Long> creations = new ArrayList<>();
    try (TieSource tieSource = new TieSource(connection, meta, ties)) {
      int done = 0;
      for (Path dir : dirs) {
        Wal.deleteAbandoned(dir, Duration.ofHours(1));
        List<Path> files = Wal.segments(dir);
        if (files.isEmpty()) {
          continue;
        }
        KeyValue key = null;
        List<IndexChange> groupChanges = new ArrayList<>();
        for (Path f : files) {
          WalSegment s = WalSegment.read(f);
          if (!s.groupAttribute().equals(meta.groupAttribute()) || !s.attributes().equals(meta.attributes())
              || s.group().type() != meta.groupType() || (key != null && !key.equals(s.group()))
              || !wal.groupDir(s.group()).equals(dir)) {
            throw new IndexFormatException(f, "was written for a different index (group " + s.group() + " of "
                + s.groupAttribute() + ", attributes " + s.attributes() + "; " + address + " stores "
                + meta.groupAttribute() + " and " + meta.attributes() + ")");
          }
          key = s.group();
          groupChanges.addAll(s.changes());
        }
        GroupOutcome o = applyGroup(c, meta, key, groupChanges, tieSource.order);
        for (Path f : files) {
          Files.deleteIfExists(f); // the group's transaction committed: these changes are in the index
        }
        build = o.build;
        segments += files.size();
        changes += groupChanges.size();
        applied += o.pending.applied();
        stale += o.pending.stale();
        groupsChanged += o.rowsWritten > 0 || o.rowsRemoved > 0 ? 1 : 0;
        rows += o.rowsWritten;
        creations.addAll(o.pending.appliedCreationMicros());
        if (progress != null && ++done % 1000 == 0) {
          progress.printf("commit: %,d of %,d groups applied%n", done, dirs.size());
        }
      }
    }
    long[] lag = percentiles(creations);
    return new Result(build == null ? meta.currentBuild() : build, segments, changes, applied, stale, groupsChanged,
        rows, lag[0], lag[1], TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
  }

  private record GroupOutcome(String build, PendingChanges pending, long rowsWritten, long rowsRemoved) {}

  /** Applies one group's changes to the current build in one transaction. */
  private GroupOutcome applyGroup(Connection c, JdbcIndexMeta meta, KeyValue group, List<IndexChange> changes,
      TieOrder order) throws SQLException, IOException {
    GroupOutcome[] outcome = new GroupOutcome[1];
    IOException[] failure = new IOException[1];
    JdbcBuilds.inTransaction(c, () -> {
      GroupRows rows = GroupRows.ofCurrentBuild(c, address, meta, group);
      List<IndexRecord> base = rows.records();
      PendingChanges pending;
      List<IndexRecord> merged;
      byte[] ledger;
      try {
        pending = PendingChanges.decide(group, changes, rows.ledger(), rows.horizonMicros());
        merged = GroupRewrite.apply(group, base, pending, order);
        ledger = pending.ledgerAfter(dedupeWindow);
      } catch (IOException e) {
        failure[0] = new IOException("group " + group + " of " + rows + ": " + e.getMessage(), e);
        throw new SQLException("rolled back: " + e.getMessage());
      }
      int first = GroupRewrite.firstDifference(base, merged);
      long removed = rows.rewrite(base, merged, first);
      rows.writeLedger(ledger);
      outcome[0] = new GroupOutcome(rows.build(), pending, merged.size() - first, removed);
    });
    if (failure[0] != null) {
      throw failure[0];
    }
    return outcome[0];
  }

  /** Takes or releases the index's commit lock (one commit at a time; a second one waits). */
  private void lock(Connection c, boolean take) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT " + (take ? "pg_advisory_lock" : "pg_advisory_unlock")
        + "(hashtext(?))")) {
      s.setString(1, "pagemark commit " + address.schema());
      s.executeQuery().close();
    }
  }

  /** p50 and p95 of the time from creation to now, in milliseconds (0 when there is none). */
  private static long[] percentiles(List<Long> creationMicros) {
    if (creationMicros.isEmpty()) {
      return new long[] {0, 0};
    }
    long now = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
    long[] lags = creationMicros.stream().mapToLong(x -> Math.max(0, (now - x) / 1000)).sorted().toArray();
    return new long[] {lags[(int) ((lags.length - 1) * 0.50)], lags[(int) ((lags.length - 1) * 0.95)]};
  }

  /** DynamoDB's order of equal sort keys, when a connection and a GSI are known; else unknown. */
  private static final class TieSource implements AutoCloseable {
    final TieOrder order;
    private final DynamoDbClient client;

    TieSource(DynamoConnection connection, JdbcIndexMeta meta, TieOrder given) {
      if (given != null || connection == null || meta.indexName() == null) {
        client = null;
        order = given != null ? given : TieOrder.UNKNOWN;
        return;
      }
      client = connection.client();
      order = new DynamoTieOrder(client, KeySchema.describe(client, meta.table(), meta.indexName()), () -> {});
    }

    @Override
    public void close() {
      if (client != null) {
        client.close();
      }
    }
  }
}
