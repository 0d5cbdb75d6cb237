package io.pagemark.pipelines.markers;

import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark markers remove}: takes every page marker off the table and deletes the stats table; the marker
 * index stays, empty. Exit code 0 when done (also when there were no markers), 2 for bad options, 1 otherwise.
 */
@Command(
    name = "remove",
    description = "Takes every page marker off the table and deletes the stats table (the marker index stays,"
        + " empty; drop it with UpdateTable if you wish).")
public final class MarkersRemoveCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  private final PrintStream out;
  private final PrintStream err;

  @Option(names = "--index", required = true, paramLabel = "SPEC",
      description = "The markers: " + MarkerSpec.USAGE + ".")
  String index;

  public MarkersRemoveCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    MarkerSpec where;
    try {
      where = MarkerSpec.parse(index);
    } catch (IllegalArgumentException e) {
      throw Cli.usageError(spec, e.getMessage());
    }
    try (DynamoDbClient client = where.connection().client()) {
      long removed = MarkerTables.remove(client, where);
      out.printf("pagemark markers remove: %,d markers taken off %s; %s deleted%n", removed, where.table(),
          where.statsKey() == null ? "stats table " + where.statsTable()
              : "the configuration and STATS items " + where.statsKey() + "#... in it");
      return ExitCode.OK;
    } catch (IllegalArgumentException | SdkException e) {
      err.println("pagemark markers remove: " + Cli.rootMessage(e));
      return ExitCode.FAILURE;
    }
  }
}
