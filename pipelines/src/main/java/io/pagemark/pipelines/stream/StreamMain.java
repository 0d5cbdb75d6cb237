package io.pagemark.pipelines.stream;

import io.pagemark.pipelines.backfill.BackfillMain;

import io.pagemark.pipelines.cli.ExitCode;
import java.util.Arrays;

/**
 * {@code pagemark stream} with the Flink runner unless {@code --runner} says otherwise: the main class for {@code flink
 * run -c io.pagemark.pipelines.stream.StreamMain pagemark-flink.jar --stream=S --table=T --gsi=G --output=DIR}, which
 * submits the stream to the cluster {@code flink run} targets and follows it until {@code flink run} is stopped
 * (SIGTERM cancels the job). Takes the options of {@code pagemark stream}; exits with its code.
 */
public final class StreamMain {
  private StreamMain() {}

  public static void main(String[] argv) {
    int code = StreamCommand.run(BackfillMain.withFlinkRunner(Arrays.asList(argv)), System.out, System.err);
    if (code != ExitCode.OK) {
      System.exit(code);
    }
  }
}
