package io.pagemark.pipelines.stream;

import io.pagemark.commit.jdbc.JdbcCommit;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code pagemark commit --index=jdbc:postgresql://... --wal=DIR}: applies the WAL a stream wrote under {@code DIR}
 * (its {@code --output}) to a PostgreSQL index ({@link JdbcCommit}), group by group, and prints a one-line summary.
 * Safe to run on a schedule while the stream appends, and to kill at any point.
 */
final class JdbcCommitCommand {
  static final Set<String> OPTIONS =
      Set.of("index", "wal", "group", "dynamoEndpoint", "awsRegion", "resolveTies", "dedupeHours");
  static final String USAGE =
      "usage: pagemark commit --index=jdbc:postgresql://HOST:PORT/DB[?currentSchema=S] --wal=DIR [--group=G]"
          + " [--dynamoEndpoint=URL] [--awsRegion=R] [--resolveTies=true|false] [--dedupeHours=24]";

  private JdbcCommitCommand() {}

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    JdbcCommit commit;
    try {
      Args a = Args.parse(argv, OPTIONS);
      JdbcAddress address;
      try {
        address = JdbcAddress.parse(a.required("index"));
      } catch (IllegalArgumentException e) {
        throw new Args.UsageException("--index: " + e.getMessage());
      }
      String endpoint = a.get("dynamoEndpoint", null);
      String resolve = a.get("resolveTies", endpoint != null ? "true" : "false");
      if (!resolve.equals("true") && !resolve.equals("false")) {
        throw new Args.UsageException("--resolveTies must be true or false, not \"" + resolve + "\"");
      }
      commit = JdbcCommit.of(address, Path.of(a.required("wal")))
          .withDedupeWindow(Duration.ofHours(Args.number("dedupeHours", a.get("dedupeHours", "24"), 1, 24 * 365)))
          .withProgress(err);
      if (resolve.equals("true")) {
        try {
          commit = commit.withTieResolution(new DynamoConnection(endpoint, a.get("awsRegion", null)));
        } catch (IllegalArgumentException e) {
          throw new Args.UsageException(e.getMessage());
        }
      }
      if (a.has("group")) {
        commit = commit.withGroup(a.required("group"));
      }
    } catch (Args.UsageException e) {
      err.println("pagemark commit: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
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
    } catch (IOException | RuntimeException e) {
      err.println("pagemark commit: failed: " + StreamCommand.rootMessage(e));
      return ExitCode.FAILURE;
    }
  }
}
