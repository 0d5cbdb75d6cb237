package io.pagemark.bench;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.pipelines.backfill.BackfillCommand;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code pagemark backfill ARGS...} in a JVM of its own, timed: runs the command as the CLI and the job jar do
 * ({@link BackfillCommand#run}), then reads the published build's counts and prints one line {@code RESULT
 * seconds=... items=... entries=... groups=... tieRuns=...} for the suite. Exit code 1 if the backfill fails or
 * publishes nothing; {@code --output=DIR} must be among the arguments.
 */
public final class BackfillJob {
  private BackfillJob() {}

  public static void main(String[] args) throws Exception {
    String output = null;
    for (String a : args) {
      if (a.startsWith("--output=")) {
        output = a.substring("--output=".length());
      }
    }
    if (output == null) {
      System.err.println("usage: BackfillJob --output=DIR [pagemark backfill options...]");
      System.exit(2);
    }
    long started = System.nanoTime();
    int code = BackfillCommand.run(List.of(args), System.out, System.err);
    double seconds = (System.nanoTime() - started) / 1e9;
    if (code != 0) {
      System.err.println("BackfillJob: pagemark backfill exited with code " + code);
      System.exit(1);
    }
    IndexLayout layout = new IndexLayout(Path.of(output));
    BuildInfo.Counts c =
        BuildInfo.read(layout.build(layout.currentBuildId()).resolve(IndexLayout.BUILD_INFO)).counts();
    System.out.printf(Locale.ROOT, "RESULT seconds=%.3f items=%d entries=%d groups=%d tieRuns=%d%n", seconds,
        c.itemsScanned(), c.entries(), c.groups(), c.tieRuns());
    System.exit(0); // Flink's local cluster may leave non-daemon threads behind
  }
}
