package io.pagemark.pipelines.markers;

import io.pagemark.pipelines.cli.Cli;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark markers build|remove}: page markers inside DynamoDB, for teams that run nothing beside it (see
 * {@code docs/markers.md}). Read them with {@code --index=dynamodb://TABLE/MARKER_INDEX}.
 */
@Command(
    name = "markers",
    description = {
      "Numbered pages with no store but DynamoDB: a marker attribute on the last item of every page, a sparse GSI"
          + " on (group key, marker) that holds only those items, and a STATS item per group. Read them with"
          + " --index=dynamodb://TABLE/MARKER_INDEX (pages of the built size only)."
    },
    subcommands = {MarkersBuildCommand.class, MarkersRemoveCommand.class})
public final class MarkersCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw Cli.usageError(spec, "say which: build or remove");
  }
}
