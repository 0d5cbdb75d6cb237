package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.commit.IndexCommit;
import io.pagemark.format.s3.S3Location;
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
      Set.of("index", "group", "dynamoEndpoint", "awsRegion", "resolveTies", "keepBuilds", "dedupeHours", "wal",
          "s3Endpoint");
  static final String USAGE =
      "usage: pagemark commit --index=DIR|s3://BUCKET/PREFIX [--wal=DIR (with s3://)] [--group=G]"
          + " [--dynamoEndpoint=URL] [--s3Endpoint=URL] [--awsRegion=R] [--resolveTies=true|false] [--keepBuilds=3]"
          + " [--dedupeHours=24]";

  private CommitCommand() {}

  /**
   * A commit of a directory index (its WAL inside it), or of an index in S3 whose WAL stays on local disk under
   * {@code --wal} (the directory {@code pagemark stream --output} wrote).
   */
  private static IndexCommit open(String index, Args a) throws Args.UsageException {
    if (!S3Location.accepts(index)) {
      if (a.has("wal")) {
        throw new Args.UsageException("--wal is for an index in S3; a directory index keeps its WAL inside it");
      }
      return IndexCommit.of(Path.of(index));
    }
    try {
      return IndexCommit.toS3(Path.of(a.required("wal")),
          S3Location.parse(S3Location.withEndpoint(index, a.get("s3Endpoint", null))));
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException(e.getMessage());
    }
  }

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.contains("--help")) {
      out.println(USAGE);
      return ExitCode.OK;
    }
    IndexCommit commit;
    try {
      Args a = Args.parse(argv, OPTIONS);
      String index = a.required("index");
      String endpoint = a.get("dynamoEndpoint", null);
      String resolve = a.get("resolveTies", endpoint != null ? "true" : "false");
      if (!resolve.equals("true") && !resolve.equals("false")) {
        throw new Args.UsageException("--resolveTies must be true or false, not \"" + resolve + "\"");
      }
      commit = open(index, a)
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
