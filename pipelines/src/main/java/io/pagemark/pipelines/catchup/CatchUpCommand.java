package io.pagemark.pipelines.catchup;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.s3.S3Location;
import io.pagemark.pipelines.backfill.Progress;
import io.pagemark.pipelines.cli.BeamOptions;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.LocalFlink;
import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.pipelines.stream.CommitCommand;
import io.pagemark.pipelines.stream.StreamRun;
import io.pagemark.transforms.sink.file.CatchUpToWal;
import io.pagemark.transforms.source.ReadTimeBuckets;
import io.pagemark.transforms.source.TimeBuckets;
import io.pagemark.wal.CatchUpWatermark;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark catch-up}: brings an index's WAL up to date from a table's time buckets, without a stream or a
 * Scan, then optionally commits. Reads the buckets from the stored watermark (or {@code --since}) less the overlap to
 * now ({@link ReadTimeBuckets}), appends the upserts to the WAL and advances the watermark once they are durable
 * ({@link CatchUpToWal}). Exit code 0 when done, 2 for bad options, 1 when it fails; with {@code --commit}, the
 * commit's exit code.
 */
@Command(
    name = "catch-up",
    modelTransformer = BeamOptions.class,
    description = {
      "Catches an index up with a table whose items carry a time bucket (a GSI whose partition key is the bucket),"
          + " without a stream and without a Scan: queries every bucket from the stored watermark (or --since), less"
          + " --overlapMinutes, to now, appends each item as an upsert to the index's write-ahead log, and moves the"
          + " watermark once they are durable. --commit then publishes them (as pagemark commit).",
      "It cannot see deletes, nor edits that keep an item's bucket: reconcile with a full backfill on a slower"
          + " schedule (docs/catch-up.md)."
    })
public final class CatchUpCommand implements Callable<Integer>, BeamOptions.PipelineCommand {
  @Spec CommandSpec spec;
  private final PrintStream out;
  private final PrintStream err;

  public CatchUpCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Runs {@code pagemark catch-up ARGS...} on its own; returns the exit code. */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    return Cli.commandLine(new CatchUpCommand(out, err), out, err).setCommandName("pagemark catch-up")
        .execute(args.toArray(String[]::new));
  }

  @Override
  public Class<CatchUpOptions> optionsInterface() {
    return CatchUpOptions.class;
  }

  @Override
  public Integer call() {
    CatchUpOptions o = BeamOptions.parse(spec, CatchUpOptions.class);
    LocalFlink.configure(o); // a batch job: Flink's local cluster without compressed exchanges
    Path walRoot = walRoot(o);
    TimeBuckets buckets;
    Instant since = null;
    try {
      buckets = new TimeBuckets(o.getBucketMinutes(), o.getBucketFormat());
      if (o.getSince() != null) {
        since = Instant.parse(o.getSince());
      }
      new DynamoConnection(o.getDynamoEndpoint(), null);
    } catch (DateTimeParseException e) {
      throw Cli.usageError(spec, "--since must be an ISO-8601 instant such as 2026-11-23T00:00:00Z, not \""
          + o.getSince() + "\"");
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
    long overlap = Cli.inRange(spec, "--overlapMinutes", o.getOverlapMinutes(), 0, 7 * 24 * 60);
    CatchUpWatermark watermark = new CatchUpWatermark(walRoot);
    Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS); // as the watermark file keeps it
    Instant from;
    try {
      Instant stored = watermark.read().orElse(null);
      if (since == null && stored == null) {
        throw Cli.usageError(spec, "no catch-up has finished into " + watermark.file().getParent() + " yet: give"
            + " --since=INSTANT (the start of the backfill that built the index, say) for the first run");
      }
      from = (since != null ? since : stored).minus(Duration.ofMinutes(overlap));
      if (from.isAfter(now)) {
        throw Cli.usageError(spec, "--since " + since + " is in the future");
      }
    } catch (IOException e) {
      err.println("pagemark catch-up: " + e.getMessage());
      return ExitCode.FAILURE;
    }

    DynamoConnection connection =
        new DynamoConnection(o.getDynamoEndpoint(), o.getAwsRegion() == null ? null : o.getAwsRegion().id());
    KeySchema schema;
    BucketIndex bucketIndex;
    try (DynamoDbClient c = connection.client()) {
      schema = KeySchema.describe(c, o.getTable(), o.getGsi());
      bucketIndex = BucketIndex.describe(c, schema, o.getBucketIndex(), o.getBucketAttribute());
      if (!remote(o.getIndex())) {
        StreamRun.checkIndex(walRoot, schema); // segments of another GSI's keys could never be committed
      }
      String bucket = buckets.name(now);
      if (bucketIndex.type() == io.pagemark.key.KeyType.N && !bucket.matches("-?[0-9]+")) {
        throw new IllegalArgumentException("the bucket attribute " + bucketIndex.attribute() + " is a number, but"
            + " --bucketFormat " + o.getBucketFormat() + " names buckets like \"" + bucket + "\"; give a pattern of"
            + " digits only, such as yyyyMMddHHmm");
      }
    } catch (IOException | IllegalArgumentException e) {
      err.println("pagemark catch-up: " + e.getMessage());
      return ExitCode.FAILURE;
    } catch (software.amazon.awssdk.core.exception.SdkException e) {
      err.println("pagemark catch-up: cannot describe table " + o.getTable() + " at " + connection + ": "
          + Cli.rootMessage(e));
      return ExitCode.FAILURE;
    }

    ReadTimeBuckets read = ReadTimeBuckets.of(connection, schema)
        .withBucketIndex(bucketIndex.name(), bucketIndex.attribute(), bucketIndex.type())
        .withBuckets(buckets)
        .between(from, now);
    List<String> names = read.bucketNames();
    Cli.printAtOnce(err, "pagemark catch-up: reading %,d buckets of %s.%s, %s to %s (from %s, %d minutes of overlap)%n",
        names.size(), o.getTable(), bucketIndex.name(), names.get(0), names.get(names.size() - 1),
        since != null ? "--since " + since : "the watermark " + from.plus(Duration.ofMinutes(overlap)), overlap);
    long started = System.nanoTime();
    PipelineResult result;
    try {
      FlinkTarget.prepare(o, err, "pagemark catch-up");
      Pipeline p = Pipeline.create(o);
      p.apply("Read buckets of " + bucketIndex.name(), read)
          .apply("Append to WAL", CatchUpToWal.of(schema).withOutput(walRoot.toString()).withWatermark(now));
      result = p.run();
      result.waitUntilFinish();
    } catch (RuntimeException e) {
      err.println("pagemark catch-up: failed: " + Cli.rootMessage(e)
          + "; the watermark did not move, the next run reads the same buckets");
      return ExitCode.FAILURE;
    }
    if (result.getState() != PipelineResult.State.DONE) {
      err.println("pagemark catch-up: the pipeline ended " + result.getState()
          + "; the watermark did not move, the next run reads the same buckets");
      return ExitCode.FAILURE;
    }
    Map<String, Long> m = Progress.counters(result);
    Cli.printAtOnce(out, "pagemark catch-up: %,d buckets, %,d items in %,d queries (%.1f read capacity units),"
            + " %,d upserts in %,d WAL segments, %,d skipped (not in %s), %,d dead letters; watermark %s; %,d ms%n",
        m.getOrDefault("bucketsRead", 0L), m.getOrDefault("itemsRead", 0L), m.getOrDefault("queryPages", 0L),
        m.getOrDefault(ReadTimeBuckets.READ_CAPACITY_MILLI, 0L) / 1000.0, m.getOrDefault("upserts", 0L),
        m.getOrDefault("segmentsWritten", 0L), m.getOrDefault("skippedNotInIndex", 0L), o.getGsi(),
        m.getOrDefault("deadLetters", 0L), now, (System.nanoTime() - started) / 1_000_000);
    if (!o.getCommit()) {
      return ExitCode.OK;
    }
    return Cli.commandLine(new CommitCommand(out, err), out, err).setCommandName("pagemark commit")
        .execute(commitArgs(o).toArray(String[]::new));
  }

  /** The directory whose wal/ folder the catch-up writes: the file index's, or --wal for S3 and PostgreSQL. */
  private Path walRoot(CatchUpOptions o) {
    String index = o.getIndex();
    boolean remote = remote(index);
    if (index.startsWith("redis://") || index.startsWith("rediss://") || index.startsWith("redis-cluster://")) {
      throw Cli.usageError(spec, "a Redis index has no write-ahead log to catch up into; catch up a file, s3:// or"
          + " PostgreSQL index, or keep Redis current with pagemark stream");
    }
    if (remote && o.getWal() == null) {
      throw Cli.usageError(spec, "an s3:// or PostgreSQL --index needs --wal=DIR: the local directory of its WAL");
    }
    if (!remote && o.getWal() != null) {
      throw Cli.usageError(spec, "--wal goes with an s3:// or PostgreSQL --index; a file index keeps its WAL under"
          + " --index");
    }
    if (!remote && index.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*")) {
      throw Cli.usageError(spec, "--index must be a directory, s3://BUCKET/PREFIX or jdbc:postgresql://..., not "
          + index);
    }
    return Path.of(remote ? o.getWal() : index);
  }

  /** Whether the index lives in S3 or PostgreSQL, its WAL elsewhere (--wal). */
  private static boolean remote(String index) {
    return S3Location.accepts(index) || index.startsWith(JdbcAddress.SCHEME);
  }

  /** {@code pagemark commit} for the same index, learning DynamoDB's order of the runs of equal sort keys. */
  private static List<String> commitArgs(CatchUpOptions o) {
    List<String> args = new ArrayList<>(List.of("--index=" + o.getIndex(), "--resolveTies=true"));
    if (o.getWal() != null) {
      args.add("--wal=" + o.getWal());
    }
    if (o.getDynamoEndpoint() != null) {
      args.add("--dynamoEndpoint=" + o.getDynamoEndpoint());
    }
    if (o.getAwsRegion() != null) {
      args.add("--awsRegion=" + o.getAwsRegion().id());
    }
    if (o.getS3Endpoint() != null) {
      args.add("--s3Endpoint=" + o.getS3Endpoint());
    }
    return args;
  }
}
