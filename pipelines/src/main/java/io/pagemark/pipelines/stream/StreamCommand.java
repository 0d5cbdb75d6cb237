package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.cli.BeamOptions;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.transforms.source.KinesisConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.PipelineResult;
import org.joda.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark stream}: appends a table's changes from a Kinesis stream to an index's WAL until stopped. SIGTERM
 * (or Ctrl-C) stops it cleanly: the pipeline is cancelled, a summary is printed, and the exit code is 0. Whatever was
 * read but not yet appended is read again by the next run. Exit code 2 for bad options, 1 when it fails. Its options
 * are those of {@link StreamOptions} ({@link BeamOptions}).
 */
@Command(
    name = "stream",
    modelTransformer = BeamOptions.class,
    description = {
      "Follows a table's changes on a Kinesis data stream (Kinesis Data Streams for DynamoDB) until stopped: appends"
          + " them to the write-ahead log of a file index (--output; pagemark commit publishes them), applies them to"
          + " a Redis index (--redis), or both. SIGTERM or Ctrl-C stops it (exit code 0); the next run resumes."
    })
public final class StreamCommand implements Callable<Integer>, BeamOptions.PipelineCommand {
  @Spec CommandSpec spec;
  private final PrintStream out;
  private final PrintStream err;

  public StreamCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Runs {@code pagemark stream ARGS...} on its own, as {@link StreamMain} does; returns the exit code. */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    return Cli.commandLine(new StreamCommand(out, err), out, err).setCommandName("pagemark stream")
        .execute(args.toArray(String[]::new));
  }

  @Override
  public Class<StreamOptions> optionsInterface() {
    return StreamOptions.class;
  }

  @Override
  public Integer call() {
    StreamOptions options = BeamOptions.parse(spec, StreamOptions.class);
    KinesisConnection.configureSdk();
    try {
      StreamRun.checkOptions(options);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
    StreamRun run;
    try {
      run = StreamRun.start(options, err);
    } catch (IllegalArgumentException e) {
      err.println("pagemark stream: " + e.getMessage());
      return ExitCode.FAILURE;
    } catch (IOException | RuntimeException e) {
      err.println("pagemark stream: failed to start: " + Cli.rootMessage(e));
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
        err.println("pagemark stream: failed: " + Cli.rootMessage(e));
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
    Cli.printAtOnce(out, "pagemark stream: %s after %.0f s; %s%n", state == PipelineResult.State.CANCELLED ? "stopped"
        : "ended (" + state + ")", run.seconds(), run.progressLine().substring("stream: ".length()));
    return state == PipelineResult.State.CANCELLED || state == PipelineResult.State.DONE
        ? ExitCode.OK : ExitCode.FAILURE;
  }
}
