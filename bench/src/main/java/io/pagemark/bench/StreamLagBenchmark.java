package io.pagemark.bench;

import io.pagemark.pipelines.backfill.BackfillCommand;
import io.pagemark.pipelines.backfill.BackfillOptions;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.stream.StreamOptions;
import io.pagemark.pipelines.stream.StreamRun;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.RedisServer;

import io.pagemark.commit.IndexCommit;
import io.pagemark.transforms.source.LagBuckets;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Benchmark: the stream's lag at a steady write rate. Starts DynamoDB Local and kinesalite, the relay and the stream
 * pipeline (DirectRunner in this JVM, or the runner given, e.g. {@code --runner=FlinkRunner --flinkMaster=[local]}),
 * writes to the demo table at {@code rate} writes per second for
 * {@code seconds} ({@link PacedWriter}: several threads on one schedule), and commits every {@code commitSeconds}. Reports the lag from each change's
 * ApproximateCreationDateTime (stamped by the relay when it reads the change from DynamoDB Local's stream) to the
 * moment it is durable in the WAL, over the measured window only, and to the moment it is visible (the publication of
 * the commit that applied it).
 *
 * <pre>
 * bench/run stream-lag [--rate=50] [--seconds=60] [--commitSeconds=5] [--flushMillis=1000] [--redis=true]
 *                               [--runner=FlinkRunner --flinkMaster=[local]|HOST:PORT]
 * </pre>
 */
public final class StreamLagBenchmark {
  private StreamLagBenchmark() {}

  /**
   * Figures of one run.
   *
   * @param writes writes made in the measured window
   * @param durableP50 median lag to durable (ms, upper bound of a 10% bucket)
   * @param durableP95 95th percentile of the same
   * @param visibleP50 median over the commits of each commit's median lag to visible (ms)
   * @param visibleP95 largest over the commits of each commit's 95th percentile lag to visible (ms)
   */
  public record Result(long writes, double rate, long durableP50, long durableP95, long visibleP50,
      long visibleP95, int commits, long redisP50, long redisP95) {
    @Override
    public String toString() {
      return String.format("%,d writes at %.0f/s: lag to durable (WAL) p50 %,d ms, p95 %,d ms; lag to visible"
          + " (commit every few seconds, %d commits) p50 %,d ms, p95 %,d ms", writes, rate, durableP50, durableP95,
          commits, visibleP50, visibleP95)
          + (redisP50 < 0 ? "" : String.format("; lag to visible in Redis (applied by the stream) p50 %,d ms,"
              + " p95 %,d ms", redisP50, redisP95));
    }
  }

  public static Result run(Path dir, int rate, int seconds, int commitSeconds, long flushMillis, PrintStream log)
      throws Exception {
    return run(dir, rate, seconds, commitSeconds, flushMillis, List.of(), false, log);
  }

  /**
   * As above, with the stream's pipeline options {@code runnerOptions} ({@code --runner=...}, for instance); with
   * {@code redis}, a redis-server is started, the backfill loads it too, and the stream applies its changes to it as
   * well, so the lag to visible in Redis is measured beside the WAL's.
   */
  public static Result run(Path dir, int rate, int seconds, int commitSeconds, long flushMillis,
      List<String> runnerOptions, boolean redis, PrintStream log) throws Exception {
    return run(dir, List.of(rate), seconds, commitSeconds, flushMillis, runnerOptions, redis, log).get(0);
  }

  /**
   * As above, with one stream measured at several rates in turn: a window of {@code seconds} at each, every window's
   * changes durable before the next begins. One result per rate, in order.
   */
  public static List<Result> run(Path dir, List<Integer> rates, int seconds, int commitSeconds, long flushMillis,
      List<String> runnerOptions, boolean redis, PrintStream log) throws Exception {
    Files.createDirectories(dir);
    Path index = dir.resolve("index");
    String table = SampleComments.TABLE;
    try (DynamoDbLocal local = DynamoDbLocal.start();
        Kinesalite kinesalite = Kinesalite.start();
        RedisServer server = redis ? RedisServer.start() : null;
        DynamoDbClient c = local.client()) {
      List<String> redisOptions = server == null ? List.of() : List.of("--redis=" + server.uri());
      SampleComments.createTable(c);
      kinesalite.createStream(table, 2);
      SampleComments.load(c, table, SampleComments.generate(2000, 50, 1), 2, null);
      List<String> backfill = new ArrayList<>(List.of("--table=" + table, "--gsi=" + SampleComments.GSI,
          "--output=" + index, "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=0"));
      backfill.addAll(redisOptions);
      BackfillOptions b = PipelineOptionsFactory.fromArgs(backfill.toArray(String[]::new)).as(BackfillOptions.class);
      BackfillCommand.run(b, BackfillCommand.configure(b), log);
      log.println("lag: index built; starting the relay and the stream");
      List<String> args = new ArrayList<>(List.of("--stream=" + table,
          "--kinesisEndpoint=" + kinesalite.endpoint(), "--output=" + index, "--table=" + table,
          "--gsi=" + SampleComments.GSI, "--dynamoEndpoint=" + local.endpoint(), "--flushMillis=" + flushMillis));
      args.addAll(runnerOptions);
      args.addAll(redisOptions);
      StreamOptions o = PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).as(StreamOptions.class);
      try (Relay relay = Relay.start(local.connection(), table, new io.pagemark.transforms.source.KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table,
              Relay.Options.PLAIN);
          StreamRun stream = StreamRun.start(o, log)) {
        // warm up until the stream has made a change durable, then measure a window of steady writes
        long warm = 0;
        while (stream.counters().getOrDefault("changesDurable", 0L) == 0) {
          Map<String, AttributeValue> item = PacedWriter.item(warm++);
          c.putItem(put -> put.tableName(table).item(item));
          Thread.sleep(1000L / rates.get(0));
        }
        List<Result> results = new ArrayList<>();
        long written = warm;
        for (int rate : rates) {
          Map<String, Long> before = stream.counters();
          List<long[]> commits = java.util.Collections.synchronizedList(new ArrayList<>());
          java.util.concurrent.ScheduledExecutorService committer =
              java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
          committer.scheduleWithFixedDelay(() -> {
            try {
              IndexCommit.Result cr = IndexCommit.of(index).run();
              if (!cr.nothingToCommit()) {
                commits.add(new long[] {cr.lagMillisP50(), cr.lagMillisP95()});
              }
            } catch (IOException e) {
              log.println("lag: a commit failed: " + e);
            }
          }, commitSeconds, commitSeconds, java.util.concurrent.TimeUnit.SECONDS);
          PacedWriter.Window w = PacedWriter.write(c, table, rate, seconds, written);
          long n = w.writes();
          written += (long) rate * seconds;
          committer.shutdown();
          committer.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
          relay.awaitIdle(java.time.Duration.ofSeconds(60));
          long target = stream.counters().getOrDefault("changes", 0L);
          long deadline = System.nanoTime() + 60_000_000_000L;
          while ((stream.counters().getOrDefault("changesDurable", 0L) < target
                  || (redis && applied(stream.counters()) < target))
              && System.nanoTime() < deadline) {
            Thread.sleep(100); // polling a condition with a deadline
          }
          Map<String, Long> window = new HashMap<>(stream.counters());
          before.forEach((k, v) -> window.merge(k, -v, Long::sum));
          log.println("lag: " + stream.progressLine());
          commits.sort((x, y) -> Long.compare(x[0], y[0]));
          long visibleP50 = commits.isEmpty() ? -1 : commits.get(commits.size() / 2)[0];
          long visibleP95 = commits.stream().mapToLong(x -> x[1]).max().orElse(-1);
          results.add(new Result(n, w.rate(), LagBuckets.quantile(window, 0.5), LagBuckets.quantile(window, 0.95),
              visibleP50, visibleP95, commits.size(),
              redis ? LagBuckets.quantile(window, 0.5, LagBuckets.VISIBLE_PREFIX) : -1,
              redis ? LagBuckets.quantile(window, 0.95, LagBuckets.VISIBLE_PREFIX) : -1));
        }
        return results;
      }
    }
  }

  /** Changes the stream has dealt with in Redis: applied, or found already there. */
  private static long applied(Map<String, Long> counters) {
    return counters.getOrDefault("changesApplied", 0L) + counters.getOrDefault("changesStale", 0L);
  }

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    return Cli.run(new Options(out, err), argv, out, err);
  }

  /** The options of {@code bench/run stream-lag}. */
  @Command(name = "bench/run stream-lag", description = "The stream's lag at a steady write rate.")
  public static final class Options implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--rate", paramLabel = "N", defaultValue = "50",
        description = "Writes per second, 1 to 2000. Default: ${DEFAULT-VALUE}.")
    long rate;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "60",
        description = "Measured seconds, 5 to 86400. Default: ${DEFAULT-VALUE}.")
    long seconds;

    @Option(names = "--commitSeconds", paramLabel = "S", defaultValue = "5",
        description = "Seconds between commits, 1 to 3600. Default: ${DEFAULT-VALUE}.")
    long commitSeconds;

    @Option(names = "--flushMillis", paramLabel = "MS", defaultValue = "1000",
        description = "The stream's --flushMillis, 1 to 600000. Default: ${DEFAULT-VALUE}.")
    long flushMillis;

    @Option(names = "--redis", paramLabel = "true|false", defaultValue = "false",
        description = "Also stream into Redis and measure the lag to visible there. Default: ${DEFAULT-VALUE}.")
    String redis;

    @Option(names = "--runner", paramLabel = "RUNNER", description = "The stream's runner (default: DirectRunner).")
    String runner;

    @Option(names = "--flinkMaster", paramLabel = "[local]|HOST:PORT", description = "With --runner=FlinkRunner.")
    String flinkMaster;

    @Option(names = "--parallelism", paramLabel = "N", description = "With --runner=FlinkRunner.")
    String parallelism;

    private final PrintStream out;
    private final PrintStream err;

    public Options(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      if (!redis.equals("true") && !redis.equals("false")) {
        throw Cli.usageError(spec, "--redis must be true or false, not " + redis);
      }
      List<String> runnerOptions = new ArrayList<>();
      if (runner != null) {
        runnerOptions.add("--runner=" + runner);
      }
      if (flinkMaster != null) {
        runnerOptions.add("--flinkMaster=" + flinkMaster);
      }
      if (parallelism != null) {
        runnerOptions.add("--parallelism=" + parallelism);
      }
      return measure((int) Cli.inRange(spec, "--rate", rate, 1, 2000),
          (int) Cli.inRange(spec, "--seconds", seconds, 5, 86_400),
          (int) Cli.inRange(spec, "--commitSeconds", commitSeconds, 1, 3600),
          Cli.inRange(spec, "--flushMillis", flushMillis, 1, 600_000), runnerOptions, redis.equals("true"), out, err);
    }
  }

  private static int measure(int rate, int seconds, int commitSeconds, long flushMillis, List<String> runnerOptions,
      boolean redis, PrintStream out, PrintStream err) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("pagemark-lag-");
      Result r = run(dir, rate, seconds, commitSeconds, flushMillis, runnerOptions, redis, err);
      out.println("bench stream-lag: " + (runnerOptions.isEmpty() ? "DirectRunner"
          : String.join(" ", runnerOptions)) + ": " + r);
      return io.pagemark.pipelines.cli.ExitCode.OK;
    } catch (Exception e) {
      err.println("bench stream-lag: failed: " + Cli.rootMessage(e));
      return io.pagemark.pipelines.cli.ExitCode.FAILURE;
    } finally {
      if (dir != null) {
        try (var s = Files.walk(dir)) {
          s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
          // a temp folder left behind
        }
      }
    }
  }
}
