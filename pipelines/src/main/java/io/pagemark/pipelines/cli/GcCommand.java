package io.pagemark.pipelines.cli;

import io.pagemark.format.BuildCollector;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcBuilds;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import io.pagemark.format.s3.S3IndexStore;
import io.pagemark.format.s3.S3Location;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark gc}: removes builds beyond the newest {@code keep}, never the current one nor one younger than the
 * grace period, and abandoned partial builds older than it (of a PostgreSQL index: builds still loading; in S3: build
 * prefixes without a build.json).
 */
@Command(
    name = "gc",
    description = "Removes the builds of a file index (a directory or s3://BUCKET/PREFIX) or a PostgreSQL index beyond"
        + " the newest --keep, never the current one nor one younger than the grace period, and abandoned partial"
        + " builds older than it.")
public final class GcCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--index", required = true, paramLabel = "DIR|s3://BUCKET/PREFIX|jdbc:postgresql://...",
      description = "The index root directory, an S3 prefix (see --s3Endpoint), or a PostgreSQL index"
          + " (?currentSchema=S for another schema than pagemark).")
  String index;

  @Mixin S3EndpointOption s3;

  @Option(names = "--keep", paramLabel = "N", defaultValue = "3",
      description = "Published builds to keep (the newest). Default: ${DEFAULT-VALUE}.")
  long keep;

  @Option(names = "--graceMinutes", paramLabel = "M", defaultValue = "60",
      description = "Never remove a build, or a partial one, younger than this. Default: ${DEFAULT-VALUE}.")
  long graceMinutes;

  private final PrintStream out;
  private final PrintStream err;

  public GcCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    int keepBuilds = (int) Cli.inRange(spec, "--keep", keep, 1, 1_000_000);
    long grace = Cli.inRange(spec, "--graceMinutes", graceMinutes, 0, 10_000_000);
    JdbcAddress address = null;
    S3Location location = null;
    if (index.startsWith(JdbcAddress.SCHEME)) {
      try {
        address = JdbcAddress.parse(index);
      } catch (IllegalArgumentException e) {
        throw Cli.usageError(spec, "--index: " + e.getMessage());
      }
    } else if (S3Location.accepts(index)) {
      try {
        location = S3Location.parse(s3.apply(index));
      } catch (IllegalArgumentException e) {
        throw Cli.usageError(spec, e.getMessage());
      }
    }
    try {
      BuildCollector.Result r = address != null
          ? collectPostgres(address, keepBuilds, Duration.ofMinutes(grace))
          : collect(location, keepBuilds, Duration.ofMinutes(grace));
      for (String id : r.removed()) {
        err.println("gc: removed build " + id);
      }
      for (String p : r.removedPartials()) {
        err.println("gc: removed abandoned partial build " + p);
      }
      out.printf("pagemark gc: removed %d build(s) and %d abandoned partial build(s); kept %d: %s%n",
          r.removed().size(), r.removedPartials().size(), r.kept().size(), String.join(", ", r.kept()));
      return ExitCode.OK;
    } catch (IOException | RuntimeException e) {
      err.println("pagemark gc: failed: " + e.getMessage());
      return ExitCode.FAILURE;
    }
  }

  private BuildCollector.Result collect(S3Location location, int keepBuilds, Duration grace) throws IOException {
    if (location == null) {
      return new BuildCollector(new IndexLayout(Path.of(index))).collect(keepBuilds, grace, System.currentTimeMillis());
    }
    try (S3IndexStore store = new S3IndexStore(location)) {
      return new BuildCollector(store).collect(keepBuilds, grace, System.currentTimeMillis());
    }
  }

  /** Drops a PostgreSQL index's old builds, and loading builds older than the grace period (killed backfills). */
  private static BuildCollector.Result collectPostgres(JdbcAddress address, int keep, Duration grace)
      throws IOException {
    try (Connection c = address.connect()) {
      JdbcIndexMeta.read(c, address); // says so when the schema holds no index
      return new JdbcBuilds(address).collect(c, keep, grace, System.currentTimeMillis(), true);
    } catch (SQLException e) {
      throw new IOException(e.getMessage(), e);
    }
  }
}
