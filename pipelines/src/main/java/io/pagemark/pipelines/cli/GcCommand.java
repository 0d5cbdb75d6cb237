package io.pagemark.pipelines.cli;

import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.format.BuildCollector;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcBuilds;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code pagemark gc --index=DIR|jdbc:postgresql://... [--keep=3] [--graceMinutes=60]}: removes builds beyond the
 * newest {@code keep}, never the current one nor one younger than the grace period, and abandoned partial builds (a
 * PostgreSQL index's builds still loading) older than it.
 */
public final class GcCommand {
  static final Set<String> OPTIONS = Set.of("index", "keep", "graceMinutes");
  static final String USAGE =
      "usage: pagemark gc --index=DIR|jdbc:postgresql://HOST:PORT/DB[?currentSchema=S] [--keep=3] [--graceMinutes=60]";

  private GcCommand() {}

  /** Drops a PostgreSQL index's old builds, and loading builds older than the grace period (killed backfills). */
  private static BuildCollector.Result collectPostgres(String spec, int keep, Duration grace)
      throws Args.UsageException, IOException {
    JdbcAddress address;
    try {
      address = JdbcAddress.parse(spec);
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("--index: " + e.getMessage());
    }
    try (Connection c = address.connect()) {
      JdbcIndexMeta.read(c, address); // says so when the schema holds no index
      return new JdbcBuilds(address).collect(c, keep, grace, System.currentTimeMillis(), true);
    } catch (SQLException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.contains("--help")) {
      out.println(USAGE);
      return ExitCode.OK;
    }
    try {
      Args a = Args.parse(argv, OPTIONS);
      String index = a.required("index");
      int keep = (int) Args.number("keep", a.get("keep", "3"), 1, 1_000_000);
      long grace = Args.number("graceMinutes", a.get("graceMinutes", "60"), 0, 10_000_000);
      BuildCollector.Result r = index.startsWith(JdbcAddress.SCHEME)
          ? collectPostgres(index, keep, Duration.ofMinutes(grace))
          : new BuildCollector(new IndexLayout(Path.of(index))).collect(keep, Duration.ofMinutes(grace),
              System.currentTimeMillis());
      for (String id : r.removed()) {
        err.println("gc: removed build " + id);
      }
      for (String p : r.removedPartials()) {
        err.println("gc: removed abandoned partial build " + p);
      }
      out.printf("pagemark gc: removed %d build(s) and %d abandoned partial build(s); kept %d: %s%n",
          r.removed().size(), r.removedPartials().size(), r.kept().size(), String.join(", ", r.kept()));
      return ExitCode.OK;
    } catch (Args.UsageException e) {
      err.println("pagemark gc: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
    } catch (IOException | RuntimeException e) {
      err.println("pagemark gc: failed: " + e.getMessage());
      return ExitCode.FAILURE;
    }
  }
}
