package io.pagemark.pipelines.markers;

import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.pipelines.backfill.Progress;
import io.pagemark.pipelines.cli.BeamOptions;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.LocalFlink;
import io.pagemark.pipelines.flink.FlinkProgress;
import io.pagemark.pipelines.flink.FlinkTarget;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.sink.markers.WriteMarkers;
import java.io.PrintStream;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark markers build}: scans the table, orders every group as the GSI returns it, and puts the page
 * markers and STATS items in place with conditional writes (see {@link WriteMarkers}); sets up the stats table and,
 * with {@code --createIndex}, the marker index first. Running it again on an unchanged table writes nothing. Exit
 * code 0 when done, 2 for bad options, 1 otherwise (also when writes still conflicted after every attempt).
 */
@Command(
    name = "build",
    modelTransformer = BeamOptions.class,
    description = {
      "Writes page markers into the table: a marker on the last item of every page of every group, taken off"
          + " every other item, and a STATS item per group. Items changed since the scan are read again and placed,"
          + " never overwritten. Idempotent."
    })
public final class MarkersBuildCommand implements Callable<Integer>, BeamOptions.PipelineCommand {
  @Spec CommandSpec spec;
  private final PrintStream out;
  private final PrintStream err;

  public MarkersBuildCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Class<MarkersOptions> optionsInterface() {
    return MarkersOptions.class;
  }

  @Override
  public Integer call() {
    MarkersOptions o = BeamOptions.parse(spec, MarkersOptions.class);
    LocalFlink.configure(o); // a batch job: Flink's local cluster without compressed exchanges
    Cli.inRange(spec, "--pageSize", o.getPageSize(), 1, 1_000_000);
    Cli.inRange(spec, "--segments", o.getSegments(), 1, 1_000_000);
    MarkerSpec where;
    DynamoConnection connection;
    try {
      connection = new DynamoConnection(o.getDynamoEndpoint(), o.getAwsRegion() == null ? null : o.getAwsRegion().id());
      String markerIndex = o.getMarkerIndex() != null ? o.getMarkerIndex() : o.getGsi() + "-markers";
      if (o.getStatsTable() != null && o.getStatsKey() != null) {
        throw new IllegalArgumentException("--statsTable and --statsKey are exclusive: the STATS items go into a"
            + " stats table or into the table itself, not both; give one of the two");
      }
      where = new MarkerSpec(o.getTable(), markerIndex, o.getStatsTable(), o.getStatsKey(), connection);
      if (!o.getMarkerAttribute().matches("[A-Za-z_][A-Za-z0-9_.-]{0,250}")) {
        throw new IllegalArgumentException("--markerAttribute \"" + o.getMarkerAttribute()
            + "\" is not an attribute name this command takes (a letter or '_', then letters, digits, '_.-')");
      }
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
    Backfill backfill;
    MarkerConfig config;
    try (DynamoDbClient client = connection.client()) {
      KeySchema schema = KeySchema.describe(client, o.getTable(), o.getGsi());
      backfill = Backfill.of(connection, schema).withSegments(o.getSegments())
          .withMaxPartEntries(o.getMaxPartEntries());
      config = MarkerTables.prepare(client, where, schema, o.getMarkerAttribute(), o.getPageSize(),
          o.isCreateIndex(), backfill.buildId());
      backfill = backfill.withBuild(config.buildId(), System.currentTimeMillis())
          .withSink(WriteMarkers.to(where, config)).withDeadLetterOutput(o.getDeadLetterOutput());
    } catch (IllegalArgumentException | IllegalStateException | SdkException e) {
      err.println("pagemark markers build: " + Cli.rootMessage(e));
      return ExitCode.FAILURE;
    }
    try {
      Map<String, Long> c = run(o, backfill);
      long conflicts = c.getOrDefault("markerConflicts", 0L);
      Cli.printAtOnce(out, "pagemark markers build: %s for pages of %d: %,d groups, %,d items scanned,"
              + " %,d markers written,"
              + " %,d taken off, %,d groups read again as they changed since the scan, %,d conflicting writes left,"
              + " %,d STATS items of groups with no items left removed%n",
          where.withStatsKey(), config.pageSize(), c.getOrDefault("groupsWritten", 0L),
          c.getOrDefault("itemsRead", 0L), c.getOrDefault("markersWritten", 0L),
          c.getOrDefault("markersRemoved", 0L), c.getOrDefault("groupsReadAgain", 0L), conflicts,
          c.getOrDefault("statsRemoved", 0L));
      if (conflicts > 0) {
        err.println("pagemark markers build: some items kept changing while their groups were placed; run the"
            + " build again (it writes only what differs)");
        return ExitCode.FAILURE;
      }
      return ExitCode.OK;
    } catch (RuntimeException e) {
      err.println("pagemark markers build: failed: " + Cli.rootMessage(e));
      return ExitCode.FAILURE;
    }
  }

  private Map<String, Long> run(MarkersOptions options, Backfill backfill) {
    options.as(DirectOptions.class).setBlockOnRun(false);
    Optional<FlinkTarget> flink = FlinkTarget.prepare(options, err, "pagemark markers build");
    Pipeline p = Pipeline.create(options);
    p.apply("Markers of " + options.getTable(), backfill);
    long started = System.nanoTime();
    PipelineResult result =
        flink.isPresent()
            ? FlinkProgress.run(p, options.getJobName(), flink.get(), options.getProgressSeconds(), err, started)
            : p.run();
    Progress.follow(result, options.getProgressSeconds(), err, started);
    if (result.getState() != PipelineResult.State.DONE) {
      throw new IllegalStateException("pipeline ended in state " + result.getState());
    }
    return Progress.counters(result);
  }
}
