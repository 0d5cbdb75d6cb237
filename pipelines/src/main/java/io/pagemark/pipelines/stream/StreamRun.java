package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.flink.FlinkRest;
import io.pagemark.pipelines.backfill.Progress;
import io.pagemark.pipelines.backfill.RedisSink;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.transforms.source.KinesisConnection;
import io.pagemark.transforms.source.KinesisShardSequence;
import io.pagemark.transforms.source.ReadStart;
import io.pagemark.transforms.source.StreamResume;
import io.pagemark.wal.ShardPosition;
import io.pagemark.transforms.source.LagBuckets;
import io.pagemark.transforms.sink.redis.RedisStreamTarget;
import io.pagemark.transforms.sink.markers.StreamToMarkers;
import io.pagemark.transforms.sink.redis.StreamToRedis;
import io.pagemark.transforms.sink.file.StreamToWal;
import io.pagemark.wal.Wal;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisIO;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;

/**
 * A running {@code pagemark stream} pipeline: {@link #start} checks the options against DynamoDB, Kinesis and the
 * index, then runs KinesisIO into {@link StreamToWal} without blocking; {@link #stop} cancels it. Records read but not
 * yet appended when it stops are read again by the next run (it resumes from the stores' shard positions,
 * {@link ResumeStart}).
 */
public final class StreamRun implements AutoCloseable {
  /** The stream's metrics that are not counters: distributions and gauges (see {@link StreamToWal}). */
  private static final java.util.Set<String> NOT_COUNTERS =
      java.util.Set.of("lagMillis");

  private final PipelineResult result;
  private final String startedFrom;
  private final String destinations;
  private final RedisCatchUp catchUp;
  private final Optional<StreamRunner.FlinkJob> flink;
  private final String jobName;
  private final long startedNanos = System.nanoTime();
  private volatile Map<String, Long> lastCounters = Map.of();
  private volatile String flinkJobId;
  private volatile boolean stopRequested;

  private StreamRun(PipelineResult result, String startedFrom, String destinations, RedisCatchUp catchUp,
      Optional<StreamRunner.FlinkJob> flink, String jobName) {
    this.result = result;
    this.startedFrom = startedFrom;
    this.destinations = destinations;
    this.catchUp = catchUp;
    this.flink = flink;
    this.jobName = jobName;
  }

  /** As {@link #start(StreamOptions, PrintStream)}, telling where the pipeline runs on stderr. */
  public static StreamRun start(StreamOptions o) throws IOException {
    return start(o, System.err);
  }

  /**
   * Checks the options that need no service: the numbers' ranges and that some destination is given. Throws {@link
   * IllegalArgumentException} saying what is wrong (a usage error: {@code pagemark stream} exits 2).
   */
  public static void checkOptions(StreamOptions o) {
    if (o.getFlushMillis() < 1) {
      throw new IllegalArgumentException("--flushMillis must be at least 1, not " + o.getFlushMillis());
    }
    if (o.getWatermarkIdleSeconds() < 1) {
      throw new IllegalArgumentException("--watermarkIdleSeconds must be at least 1, not " + o.getWatermarkIdleSeconds());
    }
    if (o.getOutput() == null && o.getRedis() == null && o.getMarkers() == null) {
      throw new IllegalArgumentException(
          "give --output=DIR, --redis=redis://HOST:PORT, --markers=dynamodb://TABLE/MARKER_INDEX, or several");
    }
    RedisSink.check(o);
    if (o.getDedupeHours() < 1) {
      throw new IllegalArgumentException("--dedupeHours must be at least 1, not " + o.getDedupeHours());
    }
    if (o.getCheckpointSeconds() < 0) {
      throw new IllegalArgumentException(
          "--checkpointSeconds must be 0 (off) or more, not " + o.getCheckpointSeconds());
    }
  }

  /**
   * Validates ({@link #checkOptions}), then starts the pipeline on the runner the options name; lines about where it
   * runs go to {@code progress}. Throws {@link IllegalArgumentException} for a problem the user can fix.
   */
  public static StreamRun start(StreamOptions o, PrintStream progress) throws IOException {
    checkOptions(o);
    String region = o.getAwsRegion() == null ? null : o.getAwsRegion().id();
    KinesisConnection kinesis = new KinesisConnection(o.getKinesisEndpoint(), region);
    DynamoConnection dynamo = new DynamoConnection(o.getDynamoEndpoint(), region);
    KeySchema schema;
    try (DynamoDbClient c = dynamo.client()) {
      schema = KeySchema.describe(c, o.getTable(), o.getGsi());
    } catch (software.amazon.awssdk.core.exception.SdkException e) {
      throw new IllegalArgumentException("cannot describe table " + o.getTable() + " at " + dynamo + ": "
          + e.getMessage(), e);
    }
    if (o.getOutput() != null) {
      checkIndex(Path.of(o.getOutput()), schema);
    }
    RedisStreamTarget redis = null;
    if (o.getRedis() != null) {
      String prefix = o.getRedisKeyPrefix() != null ? o.getRedisKeyPrefix()
          : RedisLayout.defaultPrefix(schema.table(), schema.indexName(), schema.groupAttribute(),
              schema.sortAttribute().name());
      redis = RedisStreamTarget.builder().setAddress(RedisAddress.parse(o.getRedis())).setKeyPrefix(prefix)
          .setSchema(schema).setTies(o.getResolveTies() ? dynamo : null)
          .setDedupeMillis(java.util.concurrent.TimeUnit.HOURS.toMillis(o.getDedupeHours())).build();
      RedisCatchUp.checkSchema(redis);
    }
    try (KinesisClient k = kinesis.client()) {
      k.describeStreamSummary(b -> b.streamName(o.getStream()));
    } catch (ResourceNotFoundException e) {
      throw new IllegalArgumentException("Kinesis stream " + o.getStream() + " does not exist at " + kinesis
          + " (turn on Kinesis streaming for table " + o.getTable() + ", or create the stream)");
    } catch (software.amazon.awssdk.core.exception.SdkException e) {
      throw new IllegalArgumentException("cannot reach " + kinesis + ": " + e.getMessage(), e);
    }

    // Positions are per shard and move only over durable records in Kinesis order: the watermark decides nothing
    // here, so its idle setting only tells Beam when a quiet shard's watermark may follow the clock.
    KinesisIO.Read read =
        KinesisIO.read()
            .withStreamName(o.getStream())
            .withClientConfiguration(kinesis.clientConfiguration())
            .withArrivalTimeWatermarkPolicy(Duration.standardSeconds(o.getWatermarkIdleSeconds()));
    Map<String, ShardPosition> inWal = Map.of();
    Map<String, ShardPosition> inRedis = Map.of();
    ReadStart start;
    String from;
    switch (o.getFrom().toLowerCase(Locale.ROOT)) {
      case "resume": {
        List<Map<String, ShardPosition>> stores = new java.util.ArrayList<>();
        if (o.getOutput() != null) {
          inWal = new Wal(Path.of(o.getOutput())).shardPositions();
          stores.add(inWal);
        }
        if (redis != null) {
          inRedis = redis.shardPositions();
          stores.add(inRedis);
        }
        try (KinesisClient k = kinesis.client()) {
          start = ResumeStart.of(k, o.getStream(), stores);
        } catch (software.amazon.awssdk.core.exception.SdkException e) {
          throw new IllegalArgumentException("cannot list the shards of " + o.getStream() + " at " + kinesis + ": "
              + e.getMessage(), e);
        }
        int shards = stores.stream().mapToInt(Map::size).max().orElse(0);
        from = shards == 0 ? start + " (no shard positions yet)"
            : start + " (resuming " + shards + " shard positions; records they cover are dropped unread)";
        break;
      }
      case "trim_horizon":
        start = ReadStart.trimHorizon();
        from = start.toString();
        break;
      case "latest":
        // a time rather than LATEST, so that the shard-position tracker starts where the reader does
        start = ReadStart.at(Instant.now());
        from = "the newest record (" + start + ")";
        break;
      default:
        try {
          start = ReadStart.at(Instant.parse(o.getFrom()));
          from = start.toString();
        } catch (DateTimeParseException e) {
          throw new IllegalArgumentException(
              "--from must be resume, trim_horizon, latest or an ISO-8601 instant, not \"" + o.getFrom() + "\"");
        }
    }
    read = start.applyTo(read);
    KinesisShardSequence shards = new KinesisShardSequence(kinesis, o.getStream(), start);

    Optional<StreamRunner.FlinkJob> flink = StreamRunner.configure(o, progress);
    if (flink.isEmpty()) {
      useSdfRead(o);
    }
    Pipeline p = Pipeline.create(o);
    PCollection<KinesisRecord> records = p.apply("Read " + o.getStream(), read);
    List<String> into = new java.util.ArrayList<>();
    if (o.getOutput() != null) {
      records.apply("Append changes to the WAL",
          StreamToWal.of(schema).withOutput(o.getOutput()).withFlushInterval(Duration.millis(o.getFlushMillis()))
              .withResume(new StreamResume(shards, inWal)));
      into.add(Path.of(o.getOutput()).resolve(Wal.DIR).toString());
    }
    RedisCatchUp catchUp = null;
    if (redis != null) {
      StreamToRedis toRedis = StreamToRedis.of(schema).to(redis.address(), redis.keyPrefix())
          .withFlushInterval(Duration.millis(o.getFlushMillis()))
          .withDedupeWindow(java.time.Duration.ofMillis(redis.dedupeMillis()))
          .withResume(new StreamResume(shards, inRedis));
      if (redis.ties() != null) {
        toRedis = toRedis.withTiesFrom(redis.ties());
      }
      if (o.getOutput() != null) {
        toRedis = toRedis.withoutRecordCounts(); // the WAL's branch counts the records once
      }
      records.apply("Apply changes to Redis", toRedis);
      into.add("Redis " + redis.address() + " under " + redis.layout());
      catchUp = RedisCatchUp.start(redis);
    }
    if (o.getMarkers() != null) {
      MarkerSpec markers = StreamMarkers.spec(o.getMarkers(), dynamo, schema);
      StreamToMarkers toMarkers =
          StreamToMarkers.of(schema, markers).withFlushInterval(Duration.millis(o.getFlushMillis()));
      if (o.getOutput() != null || redis != null) {
        toMarkers = toMarkers.withoutRecordCounts(); // another branch counts the records once
      }
      records.apply("Apply changes to page markers", toMarkers);
      into.add("page markers " + markers);
    }
    PipelineResult result;
    try {
      result = p.run();
    } finally {
      if (flink.isPresent()) {
        flink.get().deleteConfDir();
      }
    }
    return new StreamRun(result, from, String.join(" and ", into), catchUp, flink, o.getJobName());
  }

  /**
   * Reads Kinesis through Beam's splittable-DoFn wrapper of the source unless the user asked for the primitive read
   * ({@code --experiments=use_deprecated_read}). The DirectRunner's primitive unbounded read emits at most 10 records
   * per bundle and closes the reader after 5% of bundles; a KinesisIO reader restarted from its checkpoint starts new
   * shard threads and fetches its records again. See docs/stream.md, "Catch-up throughput" ({@code bench-stream-backlog}).
   */
  static void useSdfRead(org.apache.beam.sdk.options.PipelineOptions o) {
    org.apache.beam.sdk.options.ExperimentalOptions e = o.as(org.apache.beam.sdk.options.ExperimentalOptions.class);
    if (!org.apache.beam.sdk.options.ExperimentalOptions.hasExperiment(e, "use_deprecated_read")) {
      org.apache.beam.sdk.options.ExperimentalOptions.addExperiment(e, "use_sdf_read");
    }
  }

  String destinations() {
    return destinations;
  }

  /**
   * Refuses an index whose builds store other attributes than the table's GSI: the commit could not apply the
   * changes the stream would write. Throws {@link IllegalArgumentException} saying so; an index without a build
   * passes.
   */
  public static void checkIndex(Path root, KeySchema schema) throws IOException {
    if (!Files.exists(root.resolve(IndexLayout.CURRENT))) {
      return;
    }
    IndexLayout layout = new IndexLayout(root);
    BuildInfo info = BuildInfo.read(layout.build(layout.currentBuildId()).resolve(IndexLayout.BUILD_INFO));
    List<String> have = info.attributes().stream().map(a -> a.name() + ":" + a.type()).toList();
    List<String> want = schema.storedAttributes().stream().map((KeyAttribute a) -> a.name() + ":" + a.type()).toList();
    if (!info.groupAttribute().equals(schema.groupAttribute()) || !have.equals(want)) {
      throw new IllegalArgumentException("the index at " + root + " stores group " + info.groupAttribute() + " and "
          + have + ", but " + schema.table() + "." + schema.indexName() + " has group " + schema.groupAttribute()
          + " and " + want + "; stream into the index of that table and GSI");
    }
  }

  String startedFrom() {
    return startedFrom;
  }

  public PipelineResult result() {
    return result;
  }

  /**
   * The pipeline's counters so far (namespace {@value StreamToWal#METRICS}): from the runner, or on Flink from its
   * REST API (as Flink's metric fetcher last saw them, up to a second or, on a cluster, a few seconds old). When they
   * cannot be had (a Flink job that has just ended takes its counters with it), the last ones seen.
   */
  public Map<String, Long> counters() {
    Map<String, Long> now = Map.of();
    Optional<String> rest = flink.flatMap(StreamRunner.FlinkJob::restAddress);
    if (rest.isEmpty()) {
      now = Progress.counters(result);
    } else {
      try {
        String id = flinkJobId();
        now = id == null ? Map.of() : new FlinkRest(rest.get()).counters(id, StreamToWal.METRICS,
            name -> !NOT_COUNTERS.contains(name));
      } catch (IOException e) {
        // Flink in this JVM stops its REST API with the job; the last counters stand
      }
    }
    if (now.isEmpty()) {
      return lastCounters;
    }
    lastCounters = now;
    return now;
  }

  /** The Flink job's id, found by its name through the REST API; null while it is not listed (or not on Flink). */
  private String flinkJobId() throws IOException {
    Optional<String> rest = flink.flatMap(StreamRunner.FlinkJob::restAddress);
    if (flinkJobId == null && rest.isPresent()) {
      for (FlinkRest.Job j : new FlinkRest(rest.get()).jobs()) {
        if (j.name().equals(jobName) && !j.state().matches("FINISHED|CANCELED|FAILED")) {
          flinkJobId = j.id();
        }
      }
    }
    return flinkJobId;
  }

  /**
   * Where the pipeline runs, for the start line: the Flink job on a cluster (its id, found by job name through the
   * REST API, and how to cancel it should this launcher be killed), else nothing.
   */
  Optional<String> where() {
    if (flink.isEmpty() || !flink.get().cluster()) {
      return Optional.empty();
    }
    String cluster = flink.get().restAddress().orElseThrow();
    String id;
    try {
      id = flinkJobId();
      if (id == null) {
        id = "(id not found by the job name " + jobName + ")";
      }
    } catch (IOException e) {
      id = "(" + e.getMessage() + ")";
    }
    return Optional.of("Flink job " + id + " on http://" + cluster + "; if this launcher is killed (SIGKILL) the"
        + " job keeps running: cancel it with curl -X PATCH 'http://" + cluster + "/jobs/" + id + "?mode=cancel'"
        + " (or flink cancel, or the web UI)");
  }

  double seconds() {
    return (System.nanoTime() - startedNanos) / 1e9;
  }

  /** A progress line from the counters. */
  public String progressLine() {
    Map<String, Long> m = counters();
    long read = m.getOrDefault("recordsRead", 0L);
    if (catchUp != null) {
      return String.format(
          "stream: %,d records read (%,.0f/s), %,d changes applied to Redis (%,d already there), %,d runs of equal"
              + " sort keys rebuilt, %,d ignored (not in the index or no index change), %,d dead letters, lag to"
              + " visible in Redis p50 %s p95 %s%s",
          read, read / Math.max(seconds(), 0.001), m.getOrDefault("changesApplied", 0L),
          m.getOrDefault("changesStale", 0L), m.getOrDefault("runsRebuilt", 0L),
          m.getOrDefault("notInIndex", 0L) + m.getOrDefault("unchanged", 0L) + m.getOrDefault("otherTable", 0L),
          m.getOrDefault("deadLetters", 0L),
          millis(LagBuckets.quantile(m, 0.5, LagBuckets.VISIBLE_PREFIX)),
          millis(LagBuckets.quantile(m, 0.95, LagBuckets.VISIBLE_PREFIX)),
          m.getOrDefault("changesDurable", 0L) > 0 || m.getOrDefault("segmentsWritten", 0L) > 0
              ? String.format(", %,d changes durable in the WAL, lag to durable p50 %s p95 %s",
                  m.getOrDefault("changesDurable", 0L), millis(LagBuckets.quantile(m, 0.5)),
                  millis(LagBuckets.quantile(m, 0.95)))
              : "");
    }
    return String.format(
        "stream: %,d records read (%,.0f/s), %,d changes durable in %,d segments, %,d ignored (not in the index or"
            + " no index change), %,d dead letters, lag to durable p50 %s p95 %s",
        read, read / Math.max(seconds(), 0.001), m.getOrDefault("changesDurable", 0L),
        m.getOrDefault("segmentsWritten", 0L),
        m.getOrDefault("notInIndex", 0L) + m.getOrDefault("unchanged", 0L) + m.getOrDefault("otherTable", 0L),
        m.getOrDefault("deadLetters", 0L), millis(LagBuckets.quantile(m, 0.5)), millis(LagBuckets.quantile(m, 0.95)));
  }

  private static String millis(long ms) {
    return ms < 0 ? "-" : "~" + ms + " ms";
  }

  /** Why a failed Flink job failed (its root exception, from the REST API), when that can still be asked. */
  Optional<String> flinkFailure() {
    Optional<String> rest = flink.flatMap(StreamRunner.FlinkJob::restAddress);
    if (rest.isEmpty() || flinkJobId == null) {
      return Optional.empty();
    }
    try {
      return new FlinkRest(rest.get()).rootException(flinkJobId);
    } catch (IOException e) {
      return Optional.empty(); // Flink in this JVM took its REST API with it
    }
  }

  /**
   * Waits up to {@code timeout} for the pipeline to end; returns its state. On Flink it polls the job's state (the
   * runner's own wait logs a warning each time it times out).
   */
  PipelineResult.State awaitEnd(Duration timeout) {
    if (flink.isEmpty()) {
      return result.waitUntilFinish(timeout);
    }
    long deadline = System.nanoTime() + timeout.getMillis() * 1_000_000L;
    PipelineResult.State state = flinkState();
    while (!state.isTerminal() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(200); // polling the job's state with a deadline
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      state = flinkState();
    }
    return state;
  }

  /**
   * The Flink job's state. Flink inside this JVM shuts down with its job, after which its state cannot be asked: when
   * a stop was requested, that means cancelled.
   */
  private PipelineResult.State flinkState() {
    try {
      return result.getState();
    } catch (RuntimeException e) {
      if (stopRequested) {
        return PipelineResult.State.CANCELLED;
      }
      throw e;
    }
  }

  /** Cancels the pipeline (it stops shortly after). */
  void stop() {
    stopRequested = true;
    if (catchUp != null) {
      catchUp.close();
    }
    if (flink.isPresent()) {
      try {
        counters(); // the last look: Flink in this JVM takes its REST API, and the counters, with the job
      } catch (RuntimeException e) {
        // the summary keeps the counters seen last
      }
    }
    try {
      if (!result.getState().isTerminal()) {
        result.cancel();
      }
    } catch (IOException | RuntimeException e) {
      // already stopping (Flink in this JVM may have shut down with its job before the state could be read)
    }
  }

  /** Cancels the pipeline and waits until it has stopped reading. */
  @Override
  public void close() {
    stop();
    try {
      awaitEnd(Duration.standardSeconds(30));
    } catch (RuntimeException e) {
      // it failed while stopping; nothing more to stop
    }
  }
}
