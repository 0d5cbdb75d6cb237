package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.transforms.source.KinesisConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;

/**
 * {@code pagemark stream}: appends a table's changes from a Kinesis stream to an index's WAL until stopped. SIGTERM
 * (or Ctrl-C) stops it cleanly: the pipeline is cancelled, a summary is printed, and the exit code is 0. Whatever was
 * read but not yet appended is read again by the next run. Exit code 2 for bad options, 1 when it fails.
 */
public final class StreamCommand {
  static final String USAGE =
      "usage: pagemark stream --stream=NAME (--output=DIR | --redis=redis://HOST:PORT[/DB] | both) --table=T --gsi=G"
          + " [--redisKeyPrefix=P] [--resolveTies=true|false] [--dedupeHours=24] [--kinesisEndpoint=URL]"
          + " [--dynamoEndpoint=URL] [--awsRegion=R] [--from=resume|trim_horizon|latest|INSTANT] [--flushMillis=1000]";

  private StreamCommand() {}

  public static int run(List<String> args, PrintStream out, PrintStream err) {
    StreamOptions options;
    try {
      PipelineOptionsFactory.register(StreamOptions.class);
      options = PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).withValidation().as(StreamOptions.class);
    } catch (IllegalArgumentException e) {
      err.println("pagemark stream: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
    }
    KinesisConnection.configureSdk();
    StreamRun run;
    try {
      run = StreamRun.start(options, err);
    } catch (IllegalArgumentException e) {
      err.println("pagemark stream: " + e.getMessage());
      return ExitCode.FAILURE;
    } catch (IOException | RuntimeException e) {
      err.println("pagemark stream: failed to start: " + rootMessage(e));
      return ExitCode.FAILURE;
    }
    err.println("pagemark stream: reading " + options.getStream() + " from " + run.startedFrom() + " into "
        + run.destinations() + "; SIGTERM or Ctrl-C stops it");
    run.where().ifPresent(w -> err.println("pagemark stream: " + w));

    CountDownLatch finished = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      run.stop();
      try {
        finished.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      out.flush();
      err.flush();
      Runtime.getRuntime().halt(ExitCode.OK); // a requested stop is a success
    }, "pagemark-stream-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    int code;
    try {
      code = follow(run, options.getProgressSeconds(), out, err);
    } finally {
      finished.countDown();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook ends the process
    }
    return code;
  }

  /** Prints progress until the pipeline ends (cancelled or failed), then the summary. */
  static int follow(StreamRun run, int progressSeconds, PrintStream out, PrintStream err) {
    String last = "";
    PipelineResult.State state;
    while (true) {
      try {
        state = run.awaitEnd(Duration.standardSeconds(Math.max(1, progressSeconds)));
      } catch (RuntimeException e) {
        err.println("pagemark stream: failed: " + rootMessage(e));
        return ExitCode.FAILURE;
      }
      if (state != null && state.isTerminal()) {
        break;
      }
      if (progressSeconds > 0) {
        String line = run.progressLine();
        if (!line.equals(last)) {
          err.println(line);
          last = line;
        }
      }
    }
    if (state == PipelineResult.State.FAILED) {
      run.flinkFailure().ifPresent(why -> err.println("pagemark stream: the Flink job failed: " + why));
    }
    out.printf("pagemark stream: %s after %.0f s; %s%n", state == PipelineResult.State.CANCELLED ? "stopped"
        : "ended (" + state + ")", run.seconds(), run.progressLine().substring("stream: ".length()));
    return state == PipelineResult.State.CANCELLED || state == PipelineResult.State.DONE
        ? ExitCode.OK : ExitCode.FAILURE;
  }

  public static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.toString() : root.getMessage();
  }
}
