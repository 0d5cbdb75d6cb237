package io.pagemark.pipelines.backfill;

import io.pagemark.pipelines.Main;

import io.pagemark.pipelines.cli.ExitCode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Main class of the Flink job jar ({@code pagemark-flink.jar}): {@code pagemark backfill} with the Flink runner unless
 * {@code --runner} says otherwise, so that {@code flink run pagemark-flink.jar --table=T --gsi=G --output=DIR} builds
 * an index on the cluster {@code flink run} targets. Takes the options of {@code pagemark backfill}; exits with its
 * code when the build fails (1) or the options are wrong (2), and returns normally when the build is published.
 */
public final class BackfillMain {
  private BackfillMain() {}

  public static void main(String[] argv) {
    int code = BackfillCommand.run(withFlinkRunner(Arrays.asList(argv)), System.out, System.err);
    if (code != ExitCode.OK) {
      System.exit(code);
    }
  }

  /** The arguments, with {@code --runner=FlinkRunner} added when they name no runner. */
  public static List<String> withFlinkRunner(List<String> argv) {
    boolean named = argv.stream().anyMatch(a -> a.equals("--runner") || a.startsWith("--runner="));
    List<String> out = new ArrayList<>(argv);
    if (!named) {
      out.add("--runner=FlinkRunner");
    }
    return out;
  }
}
