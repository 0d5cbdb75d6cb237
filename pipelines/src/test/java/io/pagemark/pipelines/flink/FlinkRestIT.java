package io.pagemark.pipelines.flink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.pipelines.cli.LocalFlink;
import io.pagemark.testing.LocalProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A running job's counters through Flink's REST API, on Flink inside this JVM: a step with more counters than one
 * metrics request can name (long names, as a stream's lag buckets have) still has every one of them read, moving.
 */
class FlinkRestIT {
  static final int COUNTERS = 120;
  static final String NAMESPACE = "pagemark";

  /** Counts each element in one of {@value #COUNTERS} counters whose names are long. */
  static final class CountEach extends DoFn<Long, Void> {
    private final Counter[] counters = new Counter[COUNTERS];

    CountEach() {
      for (int i = 0; i < COUNTERS; i++) {
        counters[i] = Metrics.counter(NAMESPACE, "aCounterWithALongNameLikeALagBucket_" + i);
      }
    }

    @ProcessElement
    public void process(@Element Long n) {
      counters[(int) (n % COUNTERS)].inc();
    }
  }

  @Test
  void everyCounterOfAStepWithMoreNamesThanOneRequestHoldsIsRead() throws Exception {
    String rest = "127.0.0.1:" + LocalProcess.freePort();
    Path conf = LocalFlink.restConfDir(rest, 500);
    FlinkPipelineOptions o = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    o.setRunner(FlinkRunner.class);
    o.setFlinkMaster("[local]");
    o.setParallelism(1);
    o.setStreaming(true);
    o.setAttachedMode(false);
    o.setFlinkConfDir(conf.toString());
    o.setJobName("flink-rest-it");
    Pipeline p = Pipeline.create(o);
    p.apply(GenerateSequence.from(0).withRate(COUNTERS * 10, Duration.standardSeconds(1)))
        .apply(ParDo.of(new CountEach()));
    PipelineResult result = p.run();
    try {
      FlinkRest flink = new FlinkRest(rest);
      Map<String, Long> counters = Map.of();
      long first = 0;
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (System.nanoTime() < deadline) {
        String id = runningJob(flink);
        if (id != null) {
          counters = flink.counters(id, NAMESPACE, name -> true);
          long sum = counters.values().stream().mapToLong(Long::longValue).sum();
          if (counters.size() == COUNTERS && first == 0) {
            first = sum;
          } else if (counters.size() == COUNTERS && sum > first) {
            break; // every counter named, and the counts moving
          }
        }
        Thread.sleep(500); // polling a running job's metrics, with a deadline
      }
      assertThat("counters read: " + counters.keySet(), counters.size(), is(COUNTERS));
      assertThat(counters.values(), everyItem(greaterThan(0L)));
      assertThat(counters.values().stream().mapToLong(Long::longValue).sum(), greaterThan(first));
    } finally {
      result.cancel();
      Files.deleteIfExists(conf.resolve("config.yaml"));
      Files.deleteIfExists(conf);
    }
  }

  private static String runningJob(FlinkRest flink) {
    try {
      for (FlinkRest.Job j : flink.jobs()) {
        if (j.name().equals("flink-rest-it") && j.state().equals("RUNNING")) {
          return j.id();
        }
      }
    } catch (IOException e) {
      // the local cluster's REST API is not up yet
    }
    return null;
  }
}
