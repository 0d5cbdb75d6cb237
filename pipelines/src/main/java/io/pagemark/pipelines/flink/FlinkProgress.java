package io.pagemark.pipelines.flink;

import io.pagemark.pipelines.backfill.Progress;

import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;

/**
 * Progress of a pipeline on the Flink runner. Its attached run blocks until the job ends, and Beam's counters reach
 * the client only then (the batch translation updates them when a task finishes), so while it runs this prints what
 * Flink itself knows: for a session cluster, the job's state and how many of its tasks have finished, from the
 * cluster's REST API; for Flink inside this JVM, the time spent. The counts follow in the build's summary.
 */
public final class FlinkProgress {
  private FlinkProgress() {}

  /** Runs the pipeline to its end, printing a line every {@code everySeconds} (0: none); rethrows its failure. */
  public static PipelineResult run(Pipeline p, String jobName, FlinkTarget target, int everySeconds, PrintStream out,
      long startedNanos) {
    if (everySeconds <= 0) {
      return p.run();
    }
    CompletableFuture<PipelineResult> run = new CompletableFuture<>();
    Thread runner = new Thread(() -> {
      try {
        run.complete(p.run());
      } catch (Throwable t) {
        run.completeExceptionally(t);
      }
    }, "pagemark-flink-run");
    runner.setDaemon(true);
    runner.start();
    Optional<FlinkRest> rest = target.restAddress().map(FlinkRest::new);
    String last = "";
    while (true) {
      try {
        return run.get(everySeconds, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        String line = line(rest, jobName, (System.nanoTime() - startedNanos) / 1e9);
        if (!line.equals(last)) {
          out.println(line);
          last = line;
        }
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RuntimeException) {
          throw (RuntimeException) cause;
        }
        if (cause instanceof Error) {
          throw (Error) cause;
        }
        throw new IllegalStateException("the Flink run failed: " + cause, cause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the Flink job runs; it may still be running", e);
      }
    }
  }

  static String line(Optional<FlinkRest> rest, String jobName, double seconds) {
    if (rest.isEmpty()) {
      return String.format("progress: running on Flink, %.0f s (Beam's counts arrive when the job ends)", seconds);
    }
    try {
      for (FlinkRest.Job j : rest.get().jobs()) {
        if (j.name().equals(jobName)) {
          return String.format("progress: Flink job %s %s, %d of %d tasks finished, %d running, %.0f s", j.id(),
              j.state(), j.tasksFinished(), j.tasksTotal(), j.tasksRunning(), seconds);
        }
      }
      return String.format("progress: submitting to Flink at %s, %.0f s", rest.get().address(), seconds);
    } catch (IOException e) {
      return String.format("progress: cannot ask Flink (%s), %.0f s", e.getMessage(), seconds);
    }
  }
}
