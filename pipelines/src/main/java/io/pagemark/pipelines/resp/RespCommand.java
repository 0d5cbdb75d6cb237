package io.pagemark.pipelines.resp;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.CursorSecretOption;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.server.resp.RespServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark resp}: serves an index (a file index, or page markers inside DynamoDB) over the Redis protocol ({@link RespServer}) until SIGTERM or SIGINT,
 * which drain it (the JVM then exits with the signal's status, 143 or 130). Prints one line once it listens, with the
 * port (also when {@code --port=0} let the system choose). Exit codes: 1 when it cannot start, 2 for a usage error.
 *
 * <p>{@code bin/pagemark resp} runs {@link #main} on the server module's classpath, this class and picocli, without
 * Beam: {@link io.pagemark.pipelines.Main} would load every subcommand, and Beam's options with them, into a server
 * whose resident memory is one of its figures.
 */
@Command(
    name = "resp",
    description = "Serves an index over the Redis protocol: each group is a sorted set whose members are the items'"
        + " exclusive start keys (DynamoDB JSON) and whose scores are their ascending ranks. With --wal, ZADD and ZREM"
        + " stage changes in the index's write-ahead log and PM.COMMIT merges them. Runs until SIGTERM or SIGINT.")
public final class RespCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--index", required = true, paramLabel = "DIR",
      description = "The index to serve: the directory pagemark backfill --output wrote, or page markers inside"
          + " DynamoDB (dynamodb://TABLE/MARKER_INDEX, read-only; see --dynamoEndpoint).")
  String index;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "6380",
      description = "TCP port; 0 lets the system choose. Default: ${DEFAULT-VALUE}.")
  long port;

  @Option(names = "--bind", paramLabel = "HOST", defaultValue = "127.0.0.1",
      description = "Address to listen on. Default: ${DEFAULT-VALUE}.")
  String bind;

  @Option(names = "--wal", paramLabel = "DIR",
      description = "Accept ZADD, ZREM and PM.COMMIT, appending to the write-ahead log of this index directory (the"
          + " served one, or its wal/ folder). Without it the server is read-only.")
  Path wal;

  @Option(names = "--maxClients", paramLabel = "N", defaultValue = "10000",
      description = "Connections served at once; more are refused with Redis's error. Default: ${DEFAULT-VALUE}.")
  long maxClients;

  @Option(names = "--threads", paramLabel = "N",
      description = "Event loops, 1 to 64. Default: one per core, at most 4.")
  Long threads;

  @Option(names = "--dynamoEndpoint", paramLabel = "URL",
      description = "With --wal: PM.COMMIT learns DynamoDB's order of the runs of equal sort keys that changes touch"
          + " from this endpoint (e.g. http://127.0.0.1:8000 for DynamoDB Local), as pagemark commit does. With a"
          + " dynamodb:// index: where its table is, unless the spec names an endpoint=.")
  String dynamoEndpoint;

  @Option(names = "--awsRegion", paramLabel = "R",
      description = "With --wal or a dynamodb:// index: AWS region of those Queries (default: the AWS chain's, else"
          + " us-east-1).")
  String awsRegion;

  @Mixin CursorSecretOption secret;

  /** No secret was given: the server made one of its own. */
  private boolean randomCursors;

  private final PrintStream out;
  private final PrintStream err;

  public RespCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** What {@code bin/pagemark resp} runs: this command alone, parsed as {@code pagemark resp}. */
  public static void main(String[] args) {
    System.exit(standalone(System.out, System.err).execute(args));
  }

  /** This command without {@link io.pagemark.pipelines.Main}, named and parsed as {@code pagemark resp}. */
  static CommandLine standalone(PrintStream out, PrintStream err) {
    CommandLine cl = Cli.commandLine(new RespCommand(out, err), out, err);
    cl.setCommandName("pagemark resp");
    return cl;
  }

  @Override
  public Integer call() {
    RespServer.Options options = options();
    RespServer server;
    try {
      server = RespServer.start(options, err);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    } catch (NoSuchFileException e) {
      err.println("pagemark resp: " + e.getMessage() + (e.getReason() == null ? ": no such file" : "")
          + "; give --index the directory pagemark backfill wrote");
      return ExitCode.FAILURE;
    } catch (IOException e) {
      err.println("pagemark resp: cannot start: " + e.getMessage());
      return ExitCode.FAILURE;
    }
    // SIGTERM and SIGINT run the hook, which drains; the JVM then exits with the signal's status (143, 130)
    Thread hook = new Thread(server::close, "pagemark-resp-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    long entries = server.entries();
    out.printf("pagemark resp: serving build %s of %s (%,d groups, %s entries) on %s:%d with %d threads, %s%n",
        server.buildId(), index, server.groups(), entries < 0 ? "live" : String.format("%,d", entries),
        options.bind(), server.port(), options.threads(), options.wal() == null ? "read-only"
            : "ZADD/ZREM to the write-ahead log of " + options.wal());
    out.flush();
    if (randomCursors) {
      err.println("pagemark resp: no --cursorSecretFile or " + CursorSecretOption.ENV + ": PM.UPAGE's cursors are"
          + " signed with a random secret, so only this process accepts them, until it stops");
    }
    try {
      server.awaitClose();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook is what stopped the server
    }
    return ExitCode.OK;
  }

  private RespServer.Options options() {
    boolean markers = MarkerSpec.accepts(index);
    RespServer.Options o = RespServer.Options.of(MarkerSpec.withConnection(index, dynamoEndpoint, awsRegion))
        .withPort((int) Cli.inRange(spec, "--port", port, 0, 65535))
        .withBind(bind)
        .withMaxClients((int) Cli.inRange(spec, "--maxClients", maxClients, 1, 1_000_000));
    if (wal != null) {
      o = o.withWal(wal);
    }
    UnionCursor cursors = secret.cursors(spec);
    randomCursors = cursors == null;
    if (cursors != null) {
      o = o.withCursors(cursors);
    }
    if (threads != null) {
      o = o.withThreads((int) Cli.inRange(spec, "--threads", threads, 1, 64));
    }
    if ((dynamoEndpoint != null || awsRegion != null) && !markers) {
      if (wal == null) {
        throw Cli.usageError(spec, "--dynamoEndpoint and --awsRegion are for commits or a dynamodb:// index; they"
            + " need --wal or --index=dynamodb://TABLE/MARKER_INDEX");
      }
      try {
        o = o.withTieResolution(new DynamoConnection(dynamoEndpoint, awsRegion));
      } catch (IllegalArgumentException e) {
        throw Cli.usageError(spec, e.getMessage());
      }
    }
    return o;
  }
}
