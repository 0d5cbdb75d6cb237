package io.pagemark.pipelines;

import io.pagemark.pipelines.backfill.BackfillCommand;
import io.pagemark.pipelines.cli.GcCommand;
import io.pagemark.pipelines.cli.VerifyCommand;
import io.pagemark.pipelines.demo.Demo;
import io.pagemark.pipelines.flink.FlinkClusterCommand;
import io.pagemark.pipelines.relay.RelayCommand;
import io.pagemark.pipelines.stream.CommitCommand;
import io.pagemark.pipelines.stream.StreamCommand;

import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.LookupCommand;
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
        return io.pagemark.pipelines.cli.PageCommand.run(rest, out, err);
      case "flink-cluster":
        return FlinkClusterCommand.run(rest, out, err);
      case "stream":
        return StreamCommand.run(rest, out, err);
      case "commit":
        return CommitCommand.run(rest, out, err);
      case "relay":
        return RelayCommand.run(rest, out, err);
      default:
        err.println("pagemark: unknown command \"" + argv.get(0) + "\"");
        usage(err);
        return ExitCode.USAGE;
    }
  }

  private static void usage(PrintStream s) {
    s.println("usage: pagemark <command> [--option=value ...]");
    s.println("  demo       DynamoDB Local, sample comments, a backfill and some lookups (stops what it starts)");
    s.println("  backfill   --table=T (--gsi=G | --groupAttribute=A --sortAttribute=B)"
        + " --output=DIR|s3://BUCKET/PREFIX and/or --redis=redis://HOST:PORT[/DB]"
        + " [--dynamoEndpoint=URL] [--s3Endpoint=URL] [--awsRegion=R] [--segments=N] [--runner=...]");
    s.println("  lookup     --index=DIR|redis://HOST:PORT[/DB]|s3://BUCKET/PREFIX --group=G --page=N[,N...] --pageSize=S"
        + " [--order=asc|desc] [--build=ID] [--s3Endpoint=URL]");
    s.println("  verify     --table=T --gsi=G --index=DIR [--tolerance=0.0] [--samplesPerGroup=5] [--maxGroups=N]");
    s.println("  gc         --index=DIR|s3://BUCKET/PREFIX [--keep=3] [--graceMinutes=60] [--s3Endpoint=URL]");
    s.println("  page       --table=T --gsi=G --index=DIR|redis://... --group=G --page=N --pageSize=S [--order=asc|desc]"
        + " [--freshPages=K] [--dynamoEndpoint=URL] [--awsRegion=R]");
    s.println("  flink-cluster  start|stop|status [--taskmanagers=N]   a local Flink session cluster (see README)");
    s.println("  stream     --stream=NAME (--output=DIR | --redis=redis://HOST:PORT[/DB] | both) --table=T --gsi=G"
        + " [--redisKeyPrefix=P] [--kinesisEndpoint=URL] [--dynamoEndpoint=URL] [--from=resume|trim_horizon|latest|INSTANT]");
    s.println("  commit     --index=DIR [--group=G] [--dynamoEndpoint=URL] [--resolveTies=true|false]");
    s.println("  relay      --table=T --stream=NAME [--dynamoEndpoint=URL] [--kinesisEndpoint=URL] [--createStream=N]");
    s.println("See README.md for every option.");
  }
}
