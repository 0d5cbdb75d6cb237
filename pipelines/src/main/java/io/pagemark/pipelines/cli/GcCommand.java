package io.pagemark.pipelines.cli;

import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.format.BuildCollector;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.s3.S3IndexStore;
import io.pagemark.format.s3.S3Location;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * {@code pagemark gc --index=DIR|s3://BUCKET/PREFIX [--keep=3] [--graceMinutes=60] [--s3Endpoint=URL]}: removes
 * builds beyond the newest {@code keep}, never the current one nor one younger than the grace period, and abandoned
 * partial builds older than it (in S3: build prefixes without build.json).
 */
public final class GcCommand {
  static final Set<String> OPTIONS = Set.of("index", "keep", "graceMinutes", "s3Endpoint");
  static final String USAGE =
      "usage: pagemark gc --index=DIR|s3://BUCKET/PREFIX [--keep=3] [--graceMinutes=60] [--s3Endpoint=URL]";

  private GcCommand() {}

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
      BuildCollector.Result r;
      if (S3Location.accepts(index)) {
        S3Location location;
        try {
          location = S3Location.parse(S3Location.withEndpoint(index, a.get("s3Endpoint", null)));
        } catch (IllegalArgumentException e) {
          throw new Args.UsageException(e.getMessage());
        }
        try (S3IndexStore store = new S3IndexStore(location)) {
          r = new BuildCollector(store).collect(keep, Duration.ofMinutes(grace), System.currentTimeMillis());
        }
      } else {
        r = new BuildCollector(new IndexLayout(Path.of(index))).collect(keep, Duration.ofMinutes(grace),
            System.currentTimeMillis());
      }
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
