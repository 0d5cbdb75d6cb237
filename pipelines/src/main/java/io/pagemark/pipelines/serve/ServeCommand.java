package io.pagemark.pipelines.serve;

import io.pagemark.lookup.UnionCursor;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.CursorSecretOption;
import io.pagemark.pipelines.cli.DynamoOptions;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.S3EndpointOption;
import io.pagemark.server.http.PageServer;
import io.pagemark.server.http.ServeConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark serve}: serves an index's numbered pages over HTTP (a JSON API, a crawlable web page, OpenAPI,
 * health and metrics; see {@link PageServer}) until stopped with Ctrl-C or SIGTERM. Exit codes per {@link ExitCode}:
 * 0 after a clean stop, 1 when the index cannot be opened or the address cannot be bound, 2 for bad options.
 */
@Command(
    name = "serve",
    description = {
      "Serves numbered pages of an index over HTTP until Ctrl-C: GET /v1/groups/{group}/pages/{n} (JSON),"
          + " /groups/{group}?page=N (a web page with plain links), /openapi.json, /healthz and /metrics.",
      "Each page is read with one DynamoDB Query from where the index says it starts."
    })
public final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--index", required = true, paramLabel = "DIR|redis://...|s3://...",
      description = "The index: its root directory, redis://HOST:PORT[/DB][?prefix=P], s3://BUCKET/PREFIX (see"
          + " --s3Endpoint), or any store with a reader.")
  String index;

  @Mixin S3EndpointOption s3;

  @Mixin CursorSecretOption secret;

  /** No secret was given: the server made one of its own. */
  private boolean randomCursors;

  @Option(names = "--table", required = true, paramLabel = "T", description = "The DynamoDB table.")
  String table;

  @Option(names = "--gsi", paramLabel = "G",
      description = "The global secondary index the index numbers pages of (none: the table's own keys).")
  String gsi;

  @Option(names = "--port", paramLabel = "P", defaultValue = "" + ServeConfig.DEFAULT_PORT,
      description = "0 to 65535 (0: any free port). Default: ${DEFAULT-VALUE}.")
  long port;

  @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = ServeConfig.DEFAULT_BIND,
      description = "The address to listen on. Default: ${DEFAULT-VALUE} (this machine only).")
  String bind;

  @Mixin DynamoOptions dynamo;

  @Option(names = "--freshPages", paramLabel = "K", defaultValue = "0",
      description = "Serve pages 1..K straight from DynamoDB, so items written since the build show there."
          + " Default: ${DEFAULT-VALUE}.")
  long freshPages;

  @Option(names = "--pageSize", paramLabel = "S", defaultValue = "" + ServeConfig.DEFAULT_PAGE_SIZE,
      description = "The page size of a request that gives no size=, 1 to --maxPageSize. Default: ${DEFAULT-VALUE}.")
  long pageSize;

  @Option(names = "--maxPageSize", paramLabel = "S", defaultValue = "" + ServeConfig.DEFAULT_MAX_PAGE_SIZE,
      description = "The largest size= a request may ask for. Default: ${DEFAULT-VALUE}.")
  long maxPageSize;

  @Option(names = "--refreshSeconds", paramLabel = "SECONDS", defaultValue = "2",
      description = "How often the index's current build is looked up again (a decimal above 0)."
          + " Default: ${DEFAULT-VALUE}.")
  BigDecimal refreshSeconds;

  @Option(names = "--threads", paramLabel = "N", defaultValue = "" + ServeConfig.DEFAULT_THREADS,
      description = "Request threads (and DynamoDB connections), 1 to 1024. Default: ${DEFAULT-VALUE}.")
  long threads;

  private final PrintStream out;
  private final PrintStream err;

  public ServeCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    ServeConfig config = config();
    // A slow client must not hold a request thread forever (the JDK server reads requests on those threads).
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "30");
    }
    PageServer server;
    try {
      server = PageServer.start(config);
    } catch (IOException | RuntimeException e) {
      err.println("pagemark serve: cannot start: " + e.getMessage());
      return ExitCode.FAILURE;
    }
    Thread hook = new Thread(server::close, "pagemark-serve-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    out.println("pagemark serve: serving " + config.index() + " (table " + config.table()
        + (config.gsi() == null ? "" : ", index " + config.gsi()) + ", " + config.dynamo() + ") at " + server.url()
        + "  (API: " + server.url() + "openapi.json; Ctrl-C stops)");
    out.flush();
    if (randomCursors) {
      err.println("pagemark serve: no --cursorSecretFile or " + CursorSecretOption.ENV + ": union cursors are signed"
          + " with a random secret, so only this process accepts them, until it stops");
    }
    try {
      server.awaitStop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
    }
    return ExitCode.OK;
  }

  /** The configured cursor secret, else a random one for this process (said on stderr once the server is up). */
  private UnionCursor cursors() {
    UnionCursor configured = secret.cursors(spec);
    randomCursors = configured == null;
    return configured != null ? configured : UnionCursor.withRandomSecret();
  }

  /** The options as a configuration; a bad value is a usage error that names it. */
  ServeConfig config() {
    int max = (int) Cli.inRange(spec, "--maxPageSize", maxPageSize, 1, Integer.MAX_VALUE);
    boolean sizeGiven = spec.commandLine().getParseResult().hasMatchedOption("--pageSize");
    // the default page size never exceeds a smaller --maxPageSize; a given one must fit
    int size = sizeGiven ? (int) Cli.inRange(spec, "--pageSize", pageSize, 1, Integer.MAX_VALUE)
        : (int) Math.min(pageSize, max);
    BigDecimal millis = refreshSeconds.multiply(BigDecimal.valueOf(1000));
    if (millis.signum() <= 0 || millis.compareTo(BigDecimal.valueOf(86_400_000)) > 0) {
      throw Cli.usageError(spec, "--refreshSeconds must be above 0 and at most 86400, not " + refreshSeconds);
    }
    try {
      return new ServeConfig(s3.apply(index), table, gsi, dynamo.connection(), bind,
          (int) Cli.inRange(spec, "--port", port, 0, 65535),
          (int) Cli.inRange(spec, "--freshPages", freshPages, 0, Integer.MAX_VALUE), size, max,
          Duration.ofMillis(Math.max(1, millis.longValue())),
          (int) Cli.inRange(spec, "--threads", threads, 1, 1024), cursors());
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
  }
}
