package io.pagemark.bench;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.relay.Relay;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.stream.StreamOptions;
import io.pagemark.pipelines.stream.StreamRun;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.Kinesalite;

import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.wal.Wal;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Benchmark: how fast {@code pagemark stream} catches up a backlog. Starts DynamoDB Local and kinesalite, loads
 * {@code records} new comments into the demo table, relays their change records into a 2-shard Kinesis stream, then
 * runs the stream pipeline (DirectRunner, in this JVM) from the oldest record into an empty index folder, once per
 * variant and round, and times it until every record was read and its change is durable in the WAL (the resume
 * position is logged too: with a backlog the arrival-time watermark can pass records not yet read, see docs/stream.md). The first variant
 * is the baseline; every figure is also given as a ratio to the baseline's median in the same run.
 *
 * <pre>
 * bench/run stream-backlog [--records=5000] [--rounds=2] [--variants=primitive-read,sdf-read,...]
 * </pre>
 */
public final class StreamBacklogBenchmark {
  /** Named variants: extra {@code pagemark stream} options over the defaults. */
  static final Map<String, List<String>> VARIANTS = new LinkedHashMap<>();

  static {
    // the configuration before the SDF read became the default: the baseline
    VARIANTS.put("primitive-read", List.of("--experiments=use_deprecated_read"));
    VARIANTS.put("primitive-read-parallelism-8", List.of("--experiments=use_deprecated_read",
        "--targetParallelism=8"));
    VARIANTS.put("sdf-read", List.of()); // pagemark stream's default
  }

  private StreamBacklogBenchmark() {}

  /**
   * Seconds from start until every one of {@code records} records was read and its changes were durable in the WAL,
   * or NaN after {@code timeoutSeconds}. Logs the WAL's shard positions by then.
   */
  static double catchUp(List<String> args, Path index, long records, Instant last, int timeoutSeconds,
      PrintStream log) throws Exception {
    StreamOptions o = PipelineOptionsFactory.fromArgs(args.toArray(String[]::new)).as(StreamOptions.class);
    Wal wal = new Wal(index);
    long start = System.nanoTime();
    long nextLog = start + 10_000_000_000L;
    try (StreamRun run = StreamRun.start(o)) {
      while (true) {
        Map<String, Long> m = run.counters();
        long read = m.getOrDefault("recordsRead", 0L);
        if (read >= records && m.getOrDefault("changesDurable", 0L) >= m.getOrDefault("changes", 0L)) {
          double s = (System.nanoTime() - start) / 1e9;
          log.println("backlog:   " + run.progressLine() + "; shard positions " + wal.shardPositions()
              + (wal.shardPositions().values().stream().anyMatch(p -> !p.arrival().isBefore(last))
                  ? " (one at the last record)" : ""));
          return s;
        }
        if (run.result().getState().isTerminal()) {
          throw new IllegalStateException("the pipeline ended: " + run.result().getState());
        }
        long now = System.nanoTime();
        if (now - start > timeoutSeconds * 1_000_000_000L) {
          log.println("backlog:   gave up after " + timeoutSeconds + " s; " + run.progressLine());
          return Double.NaN;
        }
        if (now > nextLog) {
          log.println("backlog:   " + run.progressLine() + "; shard positions " + wal.shardPositions());
          nextLog = now + 10_000_000_000L;
        }
        Thread.sleep(50); // polling the counters, with a deadline
      }
    }
  }

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    return Cli.run(new Options(out, err), argv, out, err);
  }

  /** The options of {@code bench/run stream-backlog}. */
  @Command(name = "bench/run stream-backlog", description = "How fast pagemark stream catches up a backlog.")
  public static final class Options implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--records", paramLabel = "N", defaultValue = "5000",
        description = "Change records in the backlog, 100 to 1000000. Default: ${DEFAULT-VALUE}.")
    long records;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "2",
        description = "Runs of each variant, 1 to 100. Default: ${DEFAULT-VALUE}.")
    long rounds;

    @Option(names = "--timeoutSeconds", paramLabel = "S", defaultValue = "600",
        description = "Give a run up after this long, 10 to 86400. Default: ${DEFAULT-VALUE}.")
    long timeoutSeconds;

    @Option(names = "--variants", paramLabel = "NAME[,NAME...]",
        description = "Variants to run, the first one the baseline (default: all).")
    String variants;

    private final PrintStream out;
    private final PrintStream err;

    public Options(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      List<String> names = List.of((variants == null ? String.join(",", VARIANTS.keySet()) : variants).split(","));
      for (String n : names) {
        if (!VARIANTS.containsKey(n)) {
          throw Cli.usageError(spec, "unknown variant \"" + n + "\"; known: " + VARIANTS.keySet());
        }
      }
      return measure((int) Cli.inRange(spec, "--records", records, 100, 1_000_000),
          (int) Cli.inRange(spec, "--rounds", rounds, 1, 100),
          (int) Cli.inRange(spec, "--timeoutSeconds", timeoutSeconds, 10, 86_400), names, out, err);
    }
  }

  private static int measure(int records, int rounds, int timeout, List<String> names, PrintStream out,
      PrintStream err) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("pagemark-backlog-");
      String table = SampleComments.TABLE;
      try (DynamoDbLocal local = DynamoDbLocal.start();
          Kinesalite kinesalite = Kinesalite.start();
          DynamoDbClient c = local.client()) {
        SampleComments.createTable(c);
        kinesalite.createStream(table, 2);
        try (Relay relay = Relay.start(local.connection(), table, new io.pagemark.transforms.source.KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table,
            Relay.Options.PLAIN)) {
          SampleComments.load(c, table, SampleComments.generate(records, 50, 1), 2, null);
          relay.awaitIdle(java.time.Duration.ofSeconds(300));
        }
        Instant last = kinesalite.lastArrival(table);
        err.printf("backlog: %,d change records in a 2-shard stream; variants %s, %d round(s)%n", records, names,
            rounds);
        Map<String, List<Double>> seconds = new LinkedHashMap<>();
        int runs = 0;
        for (int round = 0; round < rounds; round++) {
          for (String name : names) {
            Path index = dir.resolve("index-" + runs++);
            List<String> args = new ArrayList<>(List.of("--stream=" + table,
                "--kinesisEndpoint=" + kinesalite.endpoint(), "--output=" + index, "--table=" + table,
                "--gsi=" + SampleComments.GSI, "--dynamoEndpoint=" + local.endpoint(), "--from=trim_horizon",
                "--flushMillis=500", "--watermarkIdleSeconds=2"));
            args.addAll(VARIANTS.get(name));
            double s = catchUp(args, index, records, last, timeout, err);
            err.printf("backlog: round %d %s: %.1f s (%,.0f records/s)%n", round + 1, name, s, records / s);
            seconds.computeIfAbsent(name, k -> new ArrayList<>()).add(s);
          }
        }
        double base = records / median(seconds.get(names.get(0)));
        for (String name : names) {
          double rate = records / median(seconds.get(name));
          out.printf("%s: %,.1f records/s (baseline: %,.1f records/s, ratio %.2fx)%n", name, rate, base,
              rate / base);
        }
      }
      return ExitCode.OK;
    } catch (Exception e) {
      err.println("bench stream-backlog: failed: " + Cli.rootMessage(e));
      return ExitCode.FAILURE;
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

  private static double median(List<Double> xs) {
    List<Double> s = new ArrayList<>(xs);
    s.sort(null);
    return s.get(s.size() / 2);
  }
}
