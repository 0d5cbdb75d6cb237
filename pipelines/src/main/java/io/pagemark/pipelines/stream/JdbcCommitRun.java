package io.pagemark.pipelines.stream;

import io.pagemark.commit.jdbc.JdbcCommit;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code pagemark commit --index=jdbc:postgresql://... --wal=DIR}: applies the WAL a stream wrote under {@code DIR}
 * (its {@code --output}) to a PostgreSQL index ({@link JdbcCommit}), group by group, and prints a one-line summary.
 * {@link CommitCommand} parses the options and hands them over.
 */
final class JdbcCommitRun {
  private final CommandSpec spec;
  private final PrintStream out;
  private final PrintStream err;

  JdbcCommitRun(CommandSpec spec, PrintStream out, PrintStream err) {
    this.spec = spec;
    this.out = out;
    this.err = err;
  }

  /** Runs the commit; {@code ties} null marks the runs of equal sort keys that changes touch as unknown. */
  int run(String index, Path wal, String group, DynamoConnection ties, long dedupeHours) {
    JdbcAddress address;
    try {
      address = JdbcAddress.parse(index);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, "--index: " + e.getMessage());
    }
    JdbcCommit commit = JdbcCommit.of(address, wal)
        .withDedupeWindow(Duration.ofHours(dedupeHours))
        .withProgress(err);
    if (ties != null) {
      commit = commit.withTieResolution(ties);
    }
    if (group != null) {
      commit = commit.withGroup(group);
    }
    try {
      JdbcCommit.Result r = commit.run();
      if (r.nothingToCommit()) {
        out.printf("pagemark commit: nothing to commit (no pending WAL segments); build %s unchanged%n",
            r.buildId());
      } else {
        out.printf("pagemark commit: applied to build %s: %,d segments, %,d changes (%,d applied, %,d already in the"
                + " index), %,d groups changed, %,d rows written; lag from change to visible p50 %,d ms, p95 %,d ms;"
                + " %,d ms%n", r.buildId(), r.segments(), r.changes(), r.applied(), r.stale(), r.groupsChanged(),
            r.rowsWritten(), r.lagMillisP50(), r.lagMillisP95(), r.millis());
      }
      return ExitCode.OK;
    } catch (NoSuchFileException e) {
      err.println("pagemark commit: " + e.getMessage()
          + "; run pagemark backfill --jdbcUrl=... first (the WAL keeps the stream's changes until then)");
      return ExitCode.FAILURE;
    } catch (IllegalArgumentException e) {
      err.println("pagemark commit: " + e.getMessage());
      return ExitCode.USAGE;
    } catch (IOException e) {
      // JdbcCommit's message names the database and what to check; the root cause alone ("Connection refused") not
      err.println("pagemark commit: failed: " + e.getMessage());
      return ExitCode.FAILURE;
    } catch (RuntimeException e) {
      err.println("pagemark commit: failed: " + Cli.rootMessage(e));
      return ExitCode.FAILURE;
    }
  }
}
