package io.pagemark.pipelines;

import io.pagemark.cli.ExitCode;
import io.pagemark.cli.LookupCommand;
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
    s.println("  backfill   --table=T (--gsi=G | --groupAttribute=A --sortAttribute=B) --output=DIR"
        + " [--dynamoEndpoint=URL] [--awsRegion=R] [--segments=N] [--runner=...]");
    s.println("  lookup     --index=DIR --group=G --page=N[,N...] --pageSize=S [--order=asc|desc] [--build=ID]");
    s.println("  stream     --stream=NAME --output=DIR --table=T --gsi=G [--kinesisEndpoint=URL]"
        + " [--dynamoEndpoint=URL] [--from=resume|trim_horizon|latest|INSTANT]");
    s.println("  commit     --index=DIR [--group=G] [--dynamoEndpoint=URL] [--resolveTies=true|false]");
    s.println("  relay      --table=T --stream=NAME [--dynamoEndpoint=URL] [--kinesisEndpoint=URL] [--createStream=N]");
    s.println("See README.md for every option.");
  }
}
