package io.pagemark.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What Flink's checkpoints cost the stream: its lag to durable (a change's creation in DynamoDB to its WAL segment)
 * at 50 and then 500 writes per second asked ({@link PacedWriter}; the note says the rate reached), p50 and p95, on
 * Flink inside the benchmark's JVM ({@code [local]}, parallelism 2) with checkpoints every {@value #CHECKPOINT_SECONDS} s against the same stream with checkpoints off,
 * the baseline, measured in the same run ({@link StreamLagBenchmark} for each, one stream per variant).
 */
final class StreamCheckpointLag implements Bench {
  static final int CHECKPOINT_SECONDS = 5;
  static final List<Integer> RATES = List.of(50, 500);

  @Override
  public String id() {
    return "stream-checkpoints";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    List<String> names = new ArrayList<>();
    for (int rate : RATES) {
      names.add(name(rate, "p50"));
      names.add(name(rate, "p95"));
    }
    return names;
  }

  static String name(int rate, String quantile) {
    return "stream lag to durable " + quantile + ", " + rate + " writes/s asked, Flink checkpoints on (vs off)";
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    int seconds = sizes.mode().equals("quick") ? 6 : 60;
    List<String> flink = List.of("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");
    List<String> off = new ArrayList<>(flink);
    off.add("--checkpointSeconds=0");
    List<String> on = new ArrayList<>(flink);
    on.add("--checkpointSeconds=" + CHECKPOINT_SECONDS);
    context.progress().println("stream-checkpoints: checkpoints off (the baseline)");
    List<StreamLagBenchmark.Result> base =
        StreamLagBenchmark.run(context.dir("checkpoints-off"), RATES, seconds, 5, 1000, off, false, context.progress());
    context.progress().println("stream-checkpoints: checkpoints every " + CHECKPOINT_SECONDS + " s");
    List<StreamLagBenchmark.Result> with =
        StreamLagBenchmark.run(context.dir("checkpoints-on"), RATES, seconds, 5, 1000, on, false, context.progress());
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < RATES.size(); i++) {
      StreamLagBenchmark.Result b = base.get(i);
      StreamLagBenchmark.Result w = with.get(i);
      String failure = failure(b, RATES.get(i), "without checkpoints");
      if (failure == null) {
        failure = failure(w, RATES.get(i), "with checkpoints every " + CHECKPOINT_SECONDS + " s");
      }
      if (failure != null) {
        failures.add(failure); // this rate's figures stay missing; the other rate's are still reported
        continue;
      }
      String note = String.format(Locale.ROOT, "%d s windows on Flink [local], parallelism 2, --flushMillis=1000;"
          + " reached %.0f writes/s with checkpoints every %d s, %.0f/s without; lag buckets are 10%% wide", seconds,
          w.rate(), CHECKPOINT_SECONDS, b.rate());
      context.report(new Figure(name(RATES.get(i), "p50"), w.durableP50(), "ms", "checkpoints off",
          b.durableP50(), "ms", note));
      context.report(new Figure(name(RATES.get(i), "p95"), w.durableP95(), "ms", "checkpoints off",
          b.durableP95(), "ms", note));
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(String.join("; ", failures));
    }
  }

  /**
   * Why {@code r} has no lag to report (its window made no change durable, so its quantiles are -1, which must not
   * pass for a measured figure), or null when it has one.
   */
  static String failure(StreamLagBenchmark.Result r, int rate, String variant) {
    if (r.durableP50() >= 0 && r.durableP95() >= 0) {
      return null;
    }
    return String.format(Locale.ROOT, "the stream %s made none of the window's %,d writes at %d/s asked durable"
        + " (no lag to report): %s", variant, r.writes(), rate, r);
  }
}
