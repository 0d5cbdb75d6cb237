package io.pagemark.pipelines.cli;

import io.pagemark.format.BuildCollector;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcBuilds;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark gc}: removes builds beyond the newest {@code keep}, never the current one nor one younger than the
 * grace period, and abandoned partial builds (of a PostgreSQL index: builds still loading) older than it.
 */
@Command(
    name = "gc",
    description = "Removes the builds of a file or PostgreSQL index beyond the newest --keep, never the current one"
        + " nor one younger than the grace period, and abandoned partial builds older than it.")
public final class GcCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--index", required = true, paramLabel = "DIR|jdbc:postgresql://...",
      description = "The index root directory, or a PostgreSQL index (?currentSchema=S for another schema than"
          + " pagemark).")
  String index;

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
    if (index.startsWith(JdbcAddress.SCHEME)) {
      try {
        address = JdbcAddress.parse(index);
      } catch (IllegalArgumentException e) {
        throw Cli.usageError(spec, "--index: " + e.getMessage());
      }
    }
    try {
      BuildCollector.Result r = address != null
          ? collectPostgres(address, keepBuilds, Duration.ofMinutes(grace))
          : new BuildCollector(new IndexLayout(Path.of(index)))
              .collect(keepBuilds, Duration.ofMinutes(grace), System.currentTimeMillis());
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
