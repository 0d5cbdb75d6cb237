package io.pagemark.pipelines.backfill;

import io.pagemark.transforms.Backfill;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.joda.time.Duration;

/**
 * Follows a running pipeline and prints a progress line every few seconds from its Beam metrics: items read, entries
 * and groups written, and the read rate. Works on any runner that reports attempted metrics while it runs.
 */
public final class Progress {
  private Progress() {}

  public static void follow(PipelineResult result, int everySeconds, PrintStream out, long startedNanos) {
    if (everySeconds <= 0) {
      result.waitUntilFinish();
      return;
    }
    String last = "";
    while (true) {
      PipelineResult.State s = result.waitUntilFinish(Duration.standardSeconds(everySeconds));
      if (s != null && s.isTerminal()) {
        break;
      }
      Map<String, Long> m = counters(result);
      double secs = (System.nanoTime() - startedNanos) / 1e9;
      long read = m.getOrDefault("itemsRead", 0L);
      String line =
          String.format(
              "progress: %,d items read (%,.0f/s), %,d entries in %,d groups written, %,d dead letters, %.0f s",
              read, read / Math.max(secs, 0.001), m.getOrDefault("entriesWritten", 0L),
              m.getOrDefault("groupsWritten", 0L), m.getOrDefault("deadLetters", 0L), secs);
      if (!line.equals(last)) {
        out.println(line);
        last = line;
      }
    }
  }

  public static Map<String, Long> counters(PipelineResult result) {
    Map<String, Long> m = new HashMap<>();
    try {
      MetricQueryResults q =
          result
              .metrics()
              .queryMetrics(
                  MetricsFilter.builder().addNameFilter(MetricNameFilter.inNamespace(Backfill.METRICS)).build());
      for (MetricResult<Long> c : q.getCounters()) {
        m.merge(c.getName().getName(), c.getAttempted(), Long::sum);
      }
    } catch (UnsupportedOperationException | IllegalStateException e) {
      // some runners report metrics only at the end
    }
    return m;
  }
}
