package io.pagemark.pipelines.flink;

import io.pagemark.pipelines.cli.Cli;
import io.pagemark.pipelines.cli.ExitCode;
import io.pagemark.testing.flink.ClusterOverview;
import io.pagemark.testing.flink.FlinkCluster;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code pagemark flink-cluster start|stop|status}: a local standalone Flink session cluster (see {@link
 * FlinkCluster}) for users without a Flink install. Exit codes: 0 done (or, for status, running and every TaskManager
 * registered), 1 failure (or a cluster that is only partly up), 2 usage error, 3 (status) no cluster running. The
 * job jar lacks {@link FlinkCluster}: its types appear in method bodies only, never in a signature or a lambda's
 * parameters (see {@code Main}).
 */
@Command(
    name = "flink-cluster",
    description = "A local standalone Flink session cluster (a JobManager and TaskManagers, each its own JVM on this"
        + " machine) for users without a Flink install; submit to it with --runner=FlinkRunner"
        + " --flinkMaster=HOST:PORT.",
    subcommands = {FlinkClusterCommand.Start.class, FlinkClusterCommand.Stop.class, FlinkClusterCommand.Status.class})
public final class FlinkClusterCommand implements Callable<Integer> {
  /** System property naming the default state folder (bin/pagemark sets it inside the checkout). */
  static final String DIR_PROPERTY = "pagemark.flinkCluster.dir";

  @Spec CommandSpec spec;

  /** {@code pagemark flink-cluster} without an action. */
  @Override
  public Integer call() {
    throw Cli.usageError(spec, "say start, stop or status");
  }

  /** {@code --dir}, the folder of the cluster's state and logs. */
  static final class Dir {
    @Option(names = "--dir", paramLabel = "DIR",
        description = "The cluster's state and logs (default: .pagemark/flink in the checkout).")
    String dir;

    Path path() {
      return Path.of(dir != null ? dir : System.getProperty(DIR_PROPERTY, ".pagemark/flink")).toAbsolutePath();
    }
  }

  /** {@code pagemark flink-cluster start}. */
  @Command(name = "start", description = "Starts a JobManager and TaskManagers; returns once every TaskManager has"
      + " registered.")
  public static final class Start implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Dir dir;

    @Option(names = "--taskmanagers", paramLabel = "N", defaultValue = "2",
        description = "TaskManager JVMs, 1 to 16. Default: ${DEFAULT-VALUE}.")
    long taskmanagers;

    @Option(names = "--slots", paramLabel = "N", description = "Task slots per TaskManager, 1 to 16. Default: 2.")
    Long slots;

    @Option(names = "--taskManagerMemory", paramLabel = "SIZE",
        description = "Process memory of each TaskManager, e.g. 1280m or 2g. Default: 1280m.")
    String taskManagerMemory;

    @Option(names = "--jobManagerMemory", paramLabel = "SIZE",
        description = "Process memory of the JobManager. Default: 768m.")
    String jobManagerMemory;

    private final PrintStream out;
    private final PrintStream err;

    public Start(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      int taskManagers = (int) Cli.inRange(spec, "--taskmanagers", taskmanagers, 1, 16);
      FlinkCluster.Spec d = FlinkCluster.Spec.of(taskManagers);
      FlinkCluster.Spec wanted;
      try {
        wanted = new FlinkCluster.Spec(taskManagers,
            slots == null ? d.slotsPerTaskManager() : (int) Cli.inRange(spec, "--slots", slots, 1, 16),
            jobManagerMemory == null ? d.jobManagerMemory() : jobManagerMemory,
            taskManagerMemory == null ? d.taskManagerMemory() : taskManagerMemory);
      } catch (IllegalArgumentException e) {
        throw Cli.usageError(spec, e.getMessage());
      }
      Path at = dir.path();
      try {
        err.printf("flink-cluster: starting a JobManager and %d TaskManagers (%s each, %d slots) in %s ...%n",
            wanted.taskManagers(), wanted.taskManagerMemory(), wanted.slotsPerTaskManager(), at);
        FlinkCluster c = FlinkCluster.start(at, wanted, err);
        out.printf("pagemark flink-cluster: running at http://%s with %d TaskManagers and %d slots; submit with"
                + " --runner=FlinkRunner --flinkMaster=%s; logs in %s%n",
            c.restAddress(), wanted.taskManagers(), wanted.taskManagers() * wanted.slotsPerTaskManager(),
            c.restAddress(), c.logDir());
        return ExitCode.OK;
      } catch (IOException | RuntimeException e) {
        err.println("pagemark flink-cluster start: " + e.getMessage());
        return ExitCode.FAILURE;
      }
    }
  }

  /** {@code pagemark flink-cluster stop}. */
  @Command(name = "stop", description = "Stops the cluster's processes; its logs stay.")
  public static final class Stop implements Callable<Integer> {
    @Mixin Dir dir;
    private final PrintStream out;
    private final PrintStream err;

    public Stop(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      Path at = dir.path();
      try {
        Optional<FlinkCluster> c = FlinkCluster.find(at);
        if (c.isEmpty()) {
          out.println("pagemark flink-cluster: no cluster was started in " + at + "; nothing to stop");
          return ExitCode.OK;
        }
        int stopped = c.get().stop();
        out.printf("pagemark flink-cluster: stopped %d Flink processes of %s; logs stay in %s%n", stopped, at,
            c.get().logDir());
        return ExitCode.OK;
      } catch (IOException | RuntimeException e) {
        err.println("pagemark flink-cluster stop: " + e.getMessage());
        return ExitCode.FAILURE;
      }
    }
  }

  /** {@code pagemark flink-cluster status}. */
  @Command(name = "status", description = {
    "Prints the cluster's address, processes, slots and jobs.",
    "Exit code 0 when it runs with every TaskManager registered, 1 when it is only partly up, 3 when none runs."
  })
  public static final class Status implements Callable<Integer> {
    @Mixin Dir dir;
    private final PrintStream out;
    private final PrintStream err;

    public Status(PrintStream out, PrintStream err) {
      this.out = out;
      this.err = err;
    }

    @Override
    public Integer call() {
      Path at = dir.path();
      try {
        Optional<FlinkCluster> found = FlinkCluster.find(at);
        FlinkCluster.Status s = found.isPresent() ? found.get().status() : null;
        if (s == null || (!s.jobManagerAlive() && s.taskManagersAlive() == 0)) {
          err.println("pagemark flink-cluster: no cluster is running in " + at
              + "; start one with: pagemark flink-cluster start");
          return ExitCode.NOT_FOUND;
        }
        FlinkCluster c = found.get();
        int wanted = c.spec().taskManagers();
        // No lambdas over these types: each would be a method whose signature picocli reads.
        ClusterOverview o = s.overview().orElse(null);
        out.println("REST and web UI: http://" + c.restAddress());
        out.println("JobManager:      " + (s.jobManagerAlive() ? "running" : "NOT RUNNING")
            + (o != null ? " (Flink " + o.flinkVersion() + ")" : s.jobManagerAlive() ? ", not answering" : ""));
        out.printf("TaskManagers:    %s registered, %d of %d processes alive%n",
            o != null ? Integer.toString(o.taskManagers()) : "?", s.taskManagersAlive(), wanted);
        if (o != null) {
          out.printf("Slots:           %d total, %d available%n", o.slotsTotal(), o.slotsAvailable());
          out.printf("Jobs:            %d running, %d finished, %d failed, %d cancelled%n", o.jobsRunning(),
              o.jobsFinished(), o.jobsFailed(), o.jobsCancelled());
        }
        out.println("Processes:       " + c.pids());
        out.println("State and logs:  " + c.dir());
        if (!s.healthy(wanted)) {
          err.println("pagemark flink-cluster: the cluster is only partly up; see the logs in " + c.logDir()
              + ", then: pagemark flink-cluster stop && pagemark flink-cluster start");
          return ExitCode.FAILURE;
        }
        return ExitCode.OK;
      } catch (IOException | RuntimeException e) {
        err.println("pagemark flink-cluster status: " + e.getMessage());
        return ExitCode.FAILURE;
      }
    }
  }
}
