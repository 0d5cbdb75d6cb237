package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.commit.IndexCommit;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code pagemark commit}: folds an index's pending WAL segments into a new build ({@link IndexCommit}) and prints a
 * one-line summary. Safe to run on a schedule while {@code pagemark stream} appends, and to kill at any point.
 */
public final class CommitCommand {
  static final Set<String> OPTIONS =
      Set.of("index", "group", "dynamoEndpoint", "awsRegion", "resolveTies", "keepBuilds", "dedupeHours");
  static final String USAGE =
      "usage: pagemark commit --index=DIR [--group=G] [--dynamoEndpoint=URL] [--awsRegion=R] [--resolveTies=true|false]"
          + " [--keepBuilds=3] [--dedupeHours=24]";

  private CommitCommand() {}

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.contains("--help")) {
      out.println(USAGE);
      out.println(JdbcCommitCommand.USAGE);
      return ExitCode.OK;
    }
    if (argv.stream().anyMatch(a -> a.startsWith("--index=" + io.pagemark.format.jdbc.JdbcAddress.SCHEME))) {
      return JdbcCommitCommand.run(argv, out, err);
    }
    IndexCommit commit;
    try {
      Args a = Args.parse(argv, OPTIONS);
      Path index = Path.of(a.required("index"));
      String endpoint = a.get("dynamoEndpoint", null);
      String resolve = a.get("resolveTies", endpoint != null ? "true" : "false");
      if (!resolve.equals("true") && !resolve.equals("false")) {
        throw new Args.UsageException("--resolveTies must be true or false, not \"" + resolve + "\"");
      }
      commit = IndexCommit.of(index)
          .withKeepBuilds((int) Args.number("keepBuilds", a.get("keepBuilds", "3"), 2, 1000))
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
      IndexCommit.Result r = commit.run();
      if (r.nothingToCommit()) {
        out.printf("pagemark commit: nothing to commit (no pending WAL segments); build %s stays current%n",
            r.baseBuild());
      } else {
        out.printf("pagemark commit: published build %s on %s: %,d segments, %,d changes (%,d applied, %,d already in"
                + " the index), %,d groups rewritten, %,d linked; %,d entries in %,d groups; lag from change to"
                + " visible p50 %,d ms, p95 %,d ms; %,d ms%n",
            r.buildId(), r.baseBuild(), r.segments(), r.changes(), r.applied(), r.stale(), r.groupsRewritten(),
            r.groupsLinked(), r.entries(), r.groups(), r.lagMillisP50(), r.lagMillisP95(), r.millis());
      }
      return ExitCode.OK;
    } catch (NoSuchFileException e) {
      err.println("pagemark commit: " + e.getMessage()
          + "; run pagemark backfill first (the WAL keeps the stream's changes until then)");
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
