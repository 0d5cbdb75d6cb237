package io.pagemark.pipelines;

import io.pagemark.pipelines.backfill.BackfillCommand;
import io.pagemark.pipelines.catchup.CatchUpCommand;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.pipelines.cli.GcCommand;
import io.pagemark.pipelines.cli.LookupCommand;
import io.pagemark.pipelines.cli.PageCommand;
import io.pagemark.pipelines.cli.VerifyCommand;
import io.pagemark.pipelines.demo.Demo;
import io.pagemark.pipelines.flink.FlinkClusterCommand;
import io.pagemark.pipelines.markers.MarkersCommand;
import io.pagemark.pipelines.relay.RelayCommand;
import io.pagemark.pipelines.resp.RespCommand;
import io.pagemark.pipelines.serve.ServeCommand;
import io.pagemark.pipelines.stream.CommitCommand;
import io.pagemark.pipelines.stream.StreamCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.beam.sdk.util.ReleaseInfo;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code pagemark} command line ({@code bin/pagemark}, and {@code java -cp JAR io.pagemark.pipelines.Main} as the
 * Airflow DAG runs it): one picocli command per subcommand, exit codes per {@link ExitCode}, parsing and usage errors
 * per {@link Cli}.
 *
 * <p>To add a subcommand, write a picocli {@code @Command(name = "...")} class that implements
 * {@code Callable<Integer>} (returning an {@link ExitCode}) in the package it belongs to, with a public constructor
 * {@code (PrintStream out, PrintStream err)} if it prints, and add its class to {@code subcommands} below: that one
 * line is all. A command that runs a Beam pipeline takes its options from its {@code PipelineOptions} interface with
 * {@code modelTransformer = BeamOptions.class}. The job jar that {@code flink run} and Airflow use lacks the local
 * services of {@code pagemark-testing}, and picocli reads every subcommand's fields and method signatures at start:
 * keep those types out of them (use them inside method bodies only).
 */
@Command(
    name = "pagemark",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Numbered pages for DynamoDB: builds a rank index of a table's GSI and turns \"page N of group G\""
        + " into the ExclusiveStartKey of one Query.",
    footer = "Exit codes: 0 success, 1 failure, 2 usage error, 3 not found or out of range. 'pagemark COMMAND --help'"
        + " lists a command's options.",
    subcommands = {
      Demo.class, BackfillCommand.class, StreamCommand.class, CommitCommand.class, CatchUpCommand.class,
      LookupCommand.class,
      PageCommand.class, VerifyCommand.class, GcCommand.class, RelayCommand.class, FlinkClusterCommand.class,
      ServeCommand.class,
      RespCommand.class,
      MarkersCommand.class,
      HelpCommand.class
    })
public final class Main implements Callable<Integer> {
  @Spec CommandSpec spec;

  public static void main(String[] argv) {
    System.exit(run(Arrays.asList(argv), System.out, System.err));
  }

  /** Runs {@code pagemark ARGV...}; returns its exit code. */
  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    return Cli.run(new Main(), argv, out, err);
  }

  /** {@code pagemark} alone: which command? */
  @Override
  public Integer call() {
    throw Cli.usageError(spec, "say which command to run: " + String.join(", ", spec.subcommands().keySet()));
  }

  /** {@code pagemark --version}: this build's version, and the Beam and Java it runs on. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {
        "pagemark " + p.getProperty("version", "(version unknown: built without Maven's resources)"),
        "Apache Beam " + ReleaseInfo.getReleaseInfo().getVersion() + ", Java " + Runtime.version()
      };
    }
  }
}
