package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.DynamoOptions;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.commit.IndexCommit;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.s3.S3Location;
import io.pagemark.pipelines.cli.S3EndpointOption;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark commit}: folds an index's pending WAL segments into a new build ({@link IndexCommit}), or applies
 * them to a PostgreSQL index group by group ({@link JdbcCommitRun}), and prints a one-line summary. Safe to run on a
 * schedule while {@code pagemark stream} appends, and to kill at any point.
 */
@Command(
    name = "commit",
    description = "Folds the pending write-ahead-log segments of a file index (what pagemark stream appended) into a"
        + " new build and publishes it; with --index=jdbc:postgresql://... and --wal=DIR, applies them to a PostgreSQL"
        + " index, each group in one transaction; an index in S3 (--index=s3://BUCKET/PREFIX) keeps its WAL on local"
        + " disk: give it with --wal=DIR. Safe to run on a schedule while the stream appends, and to kill at any"
        + " point.")
public final class CommitCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--index", required = true, paramLabel = "DIR|s3://BUCKET/PREFIX|jdbc:postgresql://...",
      description = "The index root directory (its WAL inside it), an S3 prefix (see --wal, --s3Endpoint), or a"
          + " PostgreSQL index (?currentSchema=S for another schema than pagemark; give --wal too).")
  String index;

  @Option(names = "--wal", paramLabel = "DIR",
      description = "With a PostgreSQL or s3:// --index: the directory the stream writes its WAL under (its"
          + " --output); the WAL stays on local disk.")
  String wal;

  @Mixin S3EndpointOption s3;

  @Option(names = "--group", paramLabel = "G", description = "Commit this group only; the others wait.")
  String group;

  @Mixin DynamoOptions dynamo;

  @Option(names = "--resolveTies", paramLabel = "true|false",
      description = "Learn DynamoDB's order of the runs of equal sort keys that changes touch (Queries on the GSI);"
          + " false marks them unknown (lookups step around them). Default: true with --dynamoEndpoint, else false.")
  String resolveTies;

  @Option(names = "--keepBuilds", paramLabel = "N", defaultValue = "3",
      description = "Published builds to keep, 2 to 1000. Default: ${DEFAULT-VALUE}.")
  long keepBuilds;

  @Option(names = "--dedupeHours", paramLabel = "H", defaultValue = "24",
      description = "Hours a change is remembered, so that a change read twice is applied once."
          + " Default: ${DEFAULT-VALUE}.")
  long dedupeHours;

  private final PrintStream out;
  private final PrintStream err;

  public CommitCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /**
   * A file commit: of a directory index (its WAL inside it), or of an index in S3 whose WAL stays on local disk under
   * {@code --wal} (the directory {@code pagemark stream --output} wrote).
   */
  private IndexCommit open() {
    if (!S3Location.accepts(index)) {
      if (wal != null) {
        throw Cli.usageError(spec, "--wal goes with a PostgreSQL or s3:// --index; a file index keeps its WAL under"
            + " --index");
      }
      return IndexCommit.of(Path.of(index));
    }
    if (wal == null) {
      throw Cli.usageError(spec, "an index in S3 needs --wal=DIR: the local directory that holds its WAL");
    }
    try {
      return IndexCommit.toS3(Path.of(wal), S3Location.parse(s3.apply(index)));
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
  }

  @Override
  public Integer call() {
    String resolve = resolveTies != null ? resolveTies : dynamo.endpoint() != null ? "true" : "false";
    if (!resolve.equals("true") && !resolve.equals("false")) {
      throw Cli.usageError(spec, "--resolveTies must be true or false, not \"" + resolve + "\"");
    }
    if (index.startsWith(JdbcAddress.SCHEME)) {
      if (spec.commandLine().getParseResult().hasMatchedOption("--keepBuilds")) {
        throw Cli.usageError(spec, "--keepBuilds applies to a file index; a PostgreSQL index is committed in place"
            + " (pagemark gc drops its old builds)");
      }
      if (wal == null) {
        throw Cli.usageError(spec, "a PostgreSQL --index needs --wal=DIR, the directory the stream writes to");
      }
      return new JdbcCommitRun(spec, out, err).run(index, Path.of(wal), group, resolve.equals("true")
          ? connection() : null, Cli.inRange(spec, "--dedupeHours", dedupeHours, 1, 24 * 365));
    }
    IndexCommit commit = open()
        .withKeepBuilds((int) Cli.inRange(spec, "--keepBuilds", keepBuilds, 2, 1000))
        .withDedupeWindow(Duration.ofHours(Cli.inRange(spec, "--dedupeHours", dedupeHours, 1, 24 * 365)))
        .withProgress(err);
    if (resolve.equals("true")) {
      commit = commit.withTieResolution(connection());
    }
    if (group != null) {
      commit = commit.withGroup(group);
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
      err.println("pagemark commit: failed: " + Cli.rootMessage(e));
      return ExitCode.FAILURE;
    }
  }

  private DynamoConnection connection() {
    try {
      return dynamo.connection();
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
  }
}
