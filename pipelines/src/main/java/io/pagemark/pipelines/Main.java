package io.pagemark.pipelines;

import io.pagemark.cli.ExitCode;
import io.pagemark.cli.LookupCommand;
import io.pagemark.stream.CommitBenchmark;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code pagemark} command line: {@code demo}, {@code backfill}, {@code lookup}, {@code stream}, {@code commit},
 * {@code relay}. Exit codes per {@link ExitCode}.
 */
public final class Main {
  private Main() {}

  public static void main(String[] argv) {
    System.exit(run(Arrays.asList(argv), System.out, System.err));
  }

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.isEmpty() || argv.get(0).equals("help") || argv.get(0).equals("--help")) {
      usage(argv.isEmpty() ? err : out);
      return argv.isEmpty() ? ExitCode.USAGE : ExitCode.OK;
    }
    List<String> rest = argv.subList(1, argv.size());
    switch (argv.get(0)) {
      case "demo":
        return Demo.run(rest, out, err);
      case "backfill":
        return BackfillCommand.run(rest, out, err);
      case "lookup":
        return LookupCommand.run(rest, out, err);
      case "verify":
        return VerifyCommand.run(rest, out, err);
      case "gc":
        return GcCommand.run(rest, out, err);
      case "page":
        return io.pagemark.cli.PageCommand.run(rest, out, err);
      case "flink-cluster":
        return FlinkClusterCommand.run(rest, out, err);
      case "stream":
        return StreamCommand.run(rest, out, err);
      case "commit":
        return CommitCommand.run(rest, out, err);
      case "relay":
        return RelayCommand.run(rest, out, err);
      case "bench-commit":
        return benchCommit(rest, out, err);
      case "bench-stream-lag":
        return StreamLagBenchmark.run(rest, out, err);
      case "bench-stream-backlog":
        return StreamBacklogBenchmark.run(rest, out, err);
      default:
        err.println("pagemark: unknown command \"" + argv.get(0) + "\"");
        usage(err);
        return ExitCode.USAGE;
    }
  }

  /** {@code bench-commit [--entries=2300000] [--changes=1000] [--rounds=5]}: {@link CommitBenchmark}. */
  private static int benchCommit(List<String> argv, PrintStream out, PrintStream err) {
    try {
      io.pagemark.cli.Args a =
          io.pagemark.cli.Args.parse(argv, java.util.Set.of("entries", "changes", "rounds"));
      long entries = io.pagemark.cli.Args.number("entries", a.get("entries", "2300000"), 1, 1_000_000_000);
      int changes = (int) io.pagemark.cli.Args.number("changes", a.get("changes", "1000"), 1, 10_000_000);
      int rounds = (int) io.pagemark.cli.Args.number("rounds", a.get("rounds", "5"), 1, 1000);
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("pagemark-commit-bench-");
      try {
        out.println("pagemark bench-commit: " + CommitBenchmark.run(dir, entries, changes, rounds));
      } finally {
        try (var s = java.nio.file.Files.walk(dir)) {
          s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
      return ExitCode.OK;
    } catch (io.pagemark.cli.Args.UsageException e) {
      err.println("pagemark bench-commit: " + e.getMessage());
      return ExitCode.USAGE;
    } catch (java.io.IOException | RuntimeException e) {
      err.println("pagemark bench-commit: failed: " + e);
      return ExitCode.FAILURE;
    }
  }

  private static void usage(PrintStream s) {
    s.println("usage: pagemark <command> [--option=value ...]");
    s.println("  demo       DynamoDB Local, sample comments, a backfill and some lookups (stops what it starts)");
    s.println("  backfill   --table=T (--gsi=G | --groupAttribute=A --sortAttribute=B)"
        + " --output=DIR and/or --redis=redis://HOST:PORT[/DB]"
        + " [--dynamoEndpoint=URL] [--awsRegion=R] [--segments=N] [--runner=...]");
    s.println("  lookup     --index=DIR|redis://HOST:PORT[/DB] --group=G --page=N[,N...] --pageSize=S"
        + " [--order=asc|desc] [--build=ID]");
    s.println("  verify     --table=T --gsi=G --index=DIR [--tolerance=0.0] [--samplesPerGroup=5] [--maxGroups=N]");
    s.println("  gc         --index=DIR [--keep=3] [--graceMinutes=60]");
    s.println("  page       --table=T --gsi=G --index=DIR|redis://... --group=G --page=N --pageSize=S [--order=asc|desc]"
        + " [--freshPages=K] [--dynamoEndpoint=URL] [--awsRegion=R]");
    s.println("  flink-cluster  start|stop|status [--taskmanagers=N]   a local Flink session cluster (see README)");
    s.println("  stream     --stream=NAME (--output=DIR | --redis=redis://HOST:PORT[/DB] | both) --table=T --gsi=G"
        + " [--redisKeyPrefix=P] [--kinesisEndpoint=URL] [--dynamoEndpoint=URL] [--from=resume|trim_horizon|latest|INSTANT]");
    s.println("  commit     --index=DIR [--group=G] [--dynamoEndpoint=URL] [--resolveTies=true|false]");
    s.println("  relay      --table=T --stream=NAME [--dynamoEndpoint=URL] [--kinesisEndpoint=URL] [--createStream=N]");
    s.println("  bench-commit, bench-stream-lag, bench-stream-backlog   benchmarks of the incremental index (see README.md)");
    s.println("See README.md for every option.");
  }
}
