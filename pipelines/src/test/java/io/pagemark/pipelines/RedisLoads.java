package io.pagemark.pipelines;

import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.order.OrderedPartCoder;
import io.pagemark.transforms.sink.redis.RedisLoadSummary;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;

/** Runs {@link WriteRedisSortedSets} on the DirectRunner over parts given in memory, as the backfill would. */
final class RedisLoads {
  private static final Map<String, RedisLoadSummary> SUMMARIES = new ConcurrentHashMap<>();

  private RedisLoads() {}

  /** A pipeline that was started. */
  record Running(PipelineResult result, String token) {
    /** Waits for the end; throws what the pipeline threw. */
    RedisLoadSummary finish() {
      PipelineResult.State end = result.waitUntilFinish();
      if (end != PipelineResult.State.DONE) {
        throw new AssertionError("the pipeline ended " + end);
      }
      return SUMMARIES.remove(token);
    }

    /**
     * Whether the pipeline has ended; throws what it threw if it failed. (Use this, not {@code getState()}, to poll:
     * once {@code getState()} has seen a failure, the DirectRunner's {@code waitUntilFinish()} no longer throws it.)
     */
    boolean ended() {
      PipelineResult.State s = result.waitUntilFinish(org.joda.time.Duration.millis(1));
      return s != null && s.isTerminal();
    }

    long counter(String name) {
      long n = 0;
      for (MetricResult<Long> c : result.metrics().queryMetrics(MetricsFilter.builder()
          .addNameFilter(MetricNameFilter.named(Backfill.METRICS, name)).build()).getCounters()) {
        n += c.getAttempted();
      }
      return n;
    }
  }

  /** Starts the load and returns at once. */
  static Running start(List<OrderedPart> parts, WriteRedisSortedSets write) {
    DirectOptions options = PipelineOptionsFactory.create().as(DirectOptions.class);
    options.setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    String token = UUID.randomUUID().toString();
    p.apply("Parts", Create.of(parts).withCoder(OrderedPartCoder.of()))
        .apply("Write Redis sorted sets", write)
        .apply("Keep the summary", ParDo.of(new Keep(token)));
    return new Running(p.run(), token);
  }

  /** Runs the load to its end. */
  static Running run(List<OrderedPart> parts, WriteRedisSortedSets write) {
    Running r = start(parts, write);
    r.result.waitUntilFinish();
    return r;
  }

  static RedisLoadSummary summary(Running r) {
    return SUMMARIES.remove(r.token);
  }

  private static final class Keep extends DoFn<RedisLoadSummary, Void> {
    private final String token;

    Keep(String token) {
      this.token = token;
    }

    @ProcessElement
    public void process(@Element RedisLoadSummary s) {
      SUMMARIES.put(token, s);
    }
  }

  /** The innermost message of a failure, as the CLI prints it. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage();
  }
}
