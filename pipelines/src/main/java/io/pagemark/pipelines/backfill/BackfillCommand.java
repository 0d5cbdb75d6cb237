package io.pagemark.pipelines.backfill;


import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyType;
import io.pagemark.pipelines.cli.BeamOptions;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.LocalFlink;
import io.pagemark.pipelines.flink.FlinkProgress;
import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.sink.file.S3EndpointOptions;
import io.pagemark.transforms.sink.file.WriteIndexFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.FileSystems;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark backfill}: builds a file index of a whole table on any Beam runner, shows progress while it runs,
 * and ends with a one-line summary. Exit code 0 when the build is published, 2 for bad options, 1 otherwise. Its
 * options are those of {@link BackfillOptions} ({@link BeamOptions}).
 */
@Command(
    name = "backfill",
    modelTransformer = BeamOptions.class,
    description = {
      "Builds the index of a whole table on a Beam runner (DirectRunner, or Flink: --runner=FlinkRunner): scans it,"
          + " orders each group as a Query on the GSI returns it, and publishes a build to a directory or"
          + " s3://BUCKET/PREFIX (--output), to Redis (--redis), to PostgreSQL (--jdbcUrl), or several of them."
          + " Prints progress on stderr and a one-line summary.",
      "Give --gsi=INDEX, or --groupAttribute and --sortAttribute."
    })
public final class BackfillCommand implements Callable<Integer>, BeamOptions.PipelineCommand {
  /** The smallest part of an S3 multipart upload. */
  static final int S3_PART_BYTES = 5 * 1024 * 1024;

  @Spec CommandSpec spec;
  private final PrintStream out;
  private final PrintStream err;

  public BackfillCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Runs {@code pagemark backfill ARGS...} on its own, as the job jar's main class does; returns the exit code. */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    return Cli.commandLine(new BackfillCommand(out, err), out, err).setCommandName("pagemark backfill")
        .execute(args.toArray(String[]::new));
  }

  @Override
  public Class<BackfillOptions> optionsInterface() {
    return BackfillOptions.class;
  }

  @Override
  public Integer call() {
    BackfillOptions options = BeamOptions.parse(spec, BackfillOptions.class);
    LocalFlink.configure(options); // a batch job: Flink's local cluster without compressed exchanges
    try {
      checkKeyOptions(options);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
    if (spec.commandLine().getUnmatchedArguments().stream().noneMatch(a -> a.startsWith("--s3UploadBufferSizeBytes"))) {
      // Beam buffers 64 MiB per object written to S3; group files are written one after another and are mostly
      // small, so S3's smallest part size serves them as well, with far less memory churn.
      options.setS3UploadBufferSizeBytes(S3_PART_BYTES);
    }
    // At most one backfill loads a Redis prefix: take its lease before anything else, and hold it to the end.
    io.pagemark.transforms.sink.redis.RedisLoadLease lease;
    try {
      lease = RedisSink.lease(options);
    } catch (IOException e) {
      err.println("pagemark backfill: " + e.getMessage());
      return ExitCode.FAILURE;
    }
    try {
      return load(options, lease == null ? null : lease.token());
    } finally {
      if (lease != null) {
        if (lease.lost() != null) {
          err.println("pagemark backfill: " + lease.lost() + " (another backfill took over the prefix while this"
              + " one ran)");
        }
        lease.close();
      }
    }
  }

  private int load(BackfillOptions options, Long leaseToken) {
    Backfill backfill;
    try {
      backfill = configure(options, leaseToken);
    } catch (IllegalArgumentException e) {
      err.println("pagemark backfill: " + e.getMessage());
      return ExitCode.FAILURE;
    }
    try {
      BuildInfo info = run(options, backfill, err);
      if (info == null) {
        Cli.printAtOnce(out, "pagemark backfill: published build %s of table %s to %s; dead letters, if any, in %s%n",
            backfill.buildId(), options.getTable(),
            String.join(" and ", backfill.sinks().stream().map(s -> s.describe()).toList()),
            Path.of(options.getDeadLetterOutput(), backfill.buildId()));
        return ExitCode.OK;
      }
      BuildInfo.Counts c = info.counts();
      Cli.printAtOnce(out,
          "pagemark backfill: published build %s of table %s to %s: %,d items scanned, %,d entries in %,d groups,"
              + " %,d skipped (no group or sort key), %,d dead letters, %,d runs of equal sort keys%n",
          info.buildId(), info.table(), options.getOutput(), c.itemsScanned(), c.entries(), c.groups(),
          c.skippedNoGroupKey() + c.skippedNoSortKey(), c.deadLetters(), c.tieRuns());
      return ExitCode.OK;
    } catch (RuntimeException | IOException e) {
      err.println("pagemark backfill: failed: " + Cli.rootMessage(e));
      return ExitCode.FAILURE;
    }
  }

  static void checkKeyOptions(BackfillOptions o) {
    boolean explicit = o.getGroupAttribute() != null || o.getSortAttribute() != null;
    if (explicit && (o.getGroupAttribute() == null || o.getSortAttribute() == null)) {
      throw new IllegalArgumentException("--groupAttribute and --sortAttribute go together");
    }
    if (o.getOutput() == null && o.getRedis() == null && o.getJdbcUrl() == null) {
      throw new IllegalArgumentException("give --output=DIR (or s3://BUCKET/PREFIX), --redis=redis://HOST:PORT,"
          + " --jdbcUrl=jdbc:postgresql://HOST:PORT/DB, or several");
    }
    RedisSink.check(o);
    JdbcSink.check(o);
    if (!explicit && o.getGsi() == null) {
      throw new IllegalArgumentException("give --gsi=INDEX, or --groupAttribute and --sortAttribute");
    }
    if (o.getSegments() < 1 || o.getSegments() > 1_000_000) {
      throw new IllegalArgumentException("--segments must be between 1 and 1000000, not " + o.getSegments());
    }
    if (o.getMaxPartEntries() < 1) {
      throw new IllegalArgumentException("--maxPartEntries must be at least 1, not " + o.getMaxPartEntries());
    }
    if (o.getKeepBuilds() < 1) {
      throw new IllegalArgumentException("--keepBuilds must be at least 1, not " + o.getKeepBuilds());
    }
    KeyType.fromDynamoName(o.getGroupAttributeType());
    KeyType.fromDynamoName(o.getSortAttributeType());
    if (o.getBuildId() != null) {
      IndexLayout.checkBuildId(o.getBuildId());
    }
    new DynamoConnection(o.getDynamoEndpoint(), null);
    S3EndpointOptions.useS3Endpoint(o);
  }

  /** The connection the options describe. */
  static DynamoConnection connection(BackfillOptions o) {
    return new DynamoConnection(o.getDynamoEndpoint(), o.getAwsRegion() == null ? null : o.getAwsRegion().id());
  }

  /** Reads the key schema from DynamoDB and configures the transform; throws on a missing table or index. */
  public static Backfill configure(BackfillOptions o) {
    return configure(o, null);
  }

  /**
   * As {@link #configure(BackfillOptions)}, with the Redis sink publishing only while the prefix's load lease holds
   * {@code redisLeaseToken} (null: unchecked).
   */
  public static Backfill configure(BackfillOptions o, Long redisLeaseToken) {
    DynamoConnection connection = connection(o);
    KeySchema schema;
    try (DynamoDbClient client = connection.client()) {
      schema =
          o.getGroupAttribute() == null
              ? KeySchema.describe(client, o.getTable(), o.getGsi())
              : KeySchema.explicit(
                  client, o.getTable(), o.getGsi(), o.getGroupAttribute(),
                  KeyType.fromDynamoName(o.getGroupAttributeType()), o.getSortAttribute(),
                  KeyType.fromDynamoName(o.getSortAttributeType()));
    } catch (software.amazon.awssdk.core.exception.SdkException e) {
      throw new IllegalArgumentException("cannot describe table " + o.getTable() + " at " + connection + ": "
          + e.getMessage(), e);
    }
    Backfill b =
        Backfill.of(connection, schema)
            .withSegments(o.getSegments())
            .withKeepBuilds(o.getKeepBuilds())
            .withMaxPartEntries(o.getMaxPartEntries());
    if (o.getBuildId() != null) {
      b = b.withBuild(o.getBuildId(), System.currentTimeMillis());
    }
    if (o.getOutput() != null) {
      b = b.withSink(WriteIndexFiles.to(o.getOutput()));
    }
    io.pagemark.transforms.sink.redis.WriteRedisSortedSets redis = RedisSink.of(o);
    if (redis != null) {
      if (redisLeaseToken != null) {
        if (!redis.keyPrefix().equals(RedisSink.keyPrefix(o))) {
          throw new IllegalStateException("the Redis sink loads prefix " + redis.keyPrefix() + ", not the leased "
              + RedisSink.keyPrefix(o));
        }
        redis = redis.withLoadLease(redisLeaseToken);
      }
      b = b.withSink(redis);
    }
    io.pagemark.transforms.sink.jdbc.WriteJdbcIndex jdbc = JdbcSink.of(o);
    if (jdbc != null) {
      b = b.withSink(jdbc);
    }
    return b.withDeadLetterOutput(o.getDeadLetterOutput());
  }

  /** Runs the build to the end, printing progress to {@code progress}; returns the published build's info. */
  public static BuildInfo run(BackfillOptions options, Backfill backfill, PrintStream progress) throws IOException {
    options.as(DirectOptions.class).setBlockOnRun(false);
    Optional<FlinkTarget> flink = FlinkTarget.prepare(options, progress);
    Pipeline p = Pipeline.create(options);
    p.apply("Backfill " + options.getTable(), backfill);
    long started = System.nanoTime();
    PipelineResult result =
        flink.isPresent()
            ? FlinkProgress.run(p, options.getJobName(), flink.get(), options.getProgressSeconds(), progress, started)
            : p.run();
    Progress.follow(result, options.getProgressSeconds(), progress, started);
    PipelineResult.State state = result.getState();
    if (state != PipelineResult.State.DONE) {
      throw new IllegalStateException("pipeline ended in state " + state + "; nothing was published");
    }
    if (options.getOutput() == null) {
      return null; // no files: the Redis or PostgreSQL sink's last step checked and published the build
    }
    return publishedInfo(options.getOutput(), backfill.buildId());
  }

  /** The published build's build.json, from a directory or any Beam file system ({@code s3://...}). */
  static BuildInfo publishedInfo(String output, String buildId) throws IOException {
    if (!output.matches("^[A-Za-z][A-Za-z0-9+.-]*://.*") || output.startsWith("file:")) {
      return BuildInfo.read(new IndexLayout(Path.of(output)).build(buildId).resolve(IndexLayout.BUILD_INFO));
    }
    String file =
        output.replaceAll("/+$", "") + "/" + IndexLayout.BUILDS + "/" + buildId + "/" + IndexLayout.BUILD_INFO;
    try (InputStream in = Channels.newInputStream(FileSystems.open(FileSystems.matchNewResource(file, false)))) {
      return BuildInfo.parse(file, in.readAllBytes());
    }
  }
}
