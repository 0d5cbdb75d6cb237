package io.pagemark.pipelines.flink;

import io.pagemark.testing.flink.FlinkCluster;

import io.pagemark.pipelines.cli.Args;
import io.pagemark.pipelines.cli.ExitCode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code pagemark flink-cluster start|stop|status}: a local standalone Flink session cluster (see {@link
 * FlinkCluster}) for users without a Flink install. Exit codes: 0 done (or, for status, running and every TaskManager
 * registered), 1 failure (or a cluster that is only partly up), 2 usage error, 3 (status) no cluster running.
 */
public final class FlinkClusterCommand {
  /** System property naming the default state folder (bin/pagemark sets it inside the checkout). */
  static final String DIR_PROPERTY = "pagemark.flinkCluster.dir";
  static final Set<String> START_OPTIONS =
      Set.of("taskmanagers", "slots", "jobManagerMemory", "taskManagerMemory", "dir");
  static final Set<String> OTHER_OPTIONS = Set.of("dir");
  static final String USAGE =
      "usage: pagemark flink-cluster start [--taskmanagers=2] [--slots=2] [--taskManagerMemory=1280m]"
          + " [--jobManagerMemory=768m] [--dir=DIR]\n"
          + "       pagemark flink-cluster stop|status [--dir=DIR]";

  private FlinkClusterCommand() {}

  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.isEmpty() || !Set.of("start", "stop", "status").contains(argv.get(0))) {
      err.println("pagemark flink-cluster: " + (argv.isEmpty() ? "say start, stop or status"
          : "unknown action \"" + argv.get(0) + "\" (start, stop or status)"));
      err.println(USAGE);
      return ExitCode.USAGE;
    }
    String action = argv.get(0);
    Args args;
    FlinkCluster.Spec spec = null;
    try {
      args = Args.parse(argv.subList(1, argv.size()), action.equals("start") ? START_OPTIONS : OTHER_OPTIONS);
      if (action.equals("start")) {
        FlinkCluster.Spec d = FlinkCluster.Spec.of(2);
        spec = new FlinkCluster.Spec(
            (int) Args.number("taskmanagers", args.get("taskmanagers", "2"), 1, 16),
            (int) Args.number("slots", args.get("slots", Integer.toString(d.slotsPerTaskManager())), 1, 16),
            args.get("jobManagerMemory", d.jobManagerMemory()), args.get("taskManagerMemory", d.taskManagerMemory()));
      }
    } catch (Args.UsageException | IllegalArgumentException e) {
      err.println("pagemark flink-cluster: " + e.getMessage());
      err.println(USAGE);
      return ExitCode.USAGE;
    }
    Path dir = Path.of(args.get("dir", System.getProperty(DIR_PROPERTY, ".pagemark/flink"))).toAbsolutePath();
    try {
      switch (action) {
        case "start":
          return start(dir, spec, out, err);
        case "stop":
          return stop(dir, out);
        default:
          return status(dir, out, err);
      }
    } catch (IOException | RuntimeException e) {
      err.println("pagemark flink-cluster " + action + ": " + e.getMessage());
      return ExitCode.FAILURE;
    }
  }

  private static int start(Path dir, FlinkCluster.Spec spec, PrintStream out, PrintStream err) throws IOException {
    err.printf("flink-cluster: starting a JobManager and %d TaskManagers (%s each, %d slots) in %s ...%n",
        spec.taskManagers(), spec.taskManagerMemory(), spec.slotsPerTaskManager(), dir);
    FlinkCluster c = FlinkCluster.start(dir, spec, err);
    out.printf("pagemark flink-cluster: running at http://%s with %d TaskManagers and %d slots; submit with"
            + " --runner=FlinkRunner --flinkMaster=%s; logs in %s%n",
        c.restAddress(), spec.taskManagers(), spec.taskManagers() * spec.slotsPerTaskManager(), c.restAddress(),
        c.logDir());
    return ExitCode.OK;
  }

  private static int stop(Path dir, PrintStream out) throws IOException {
    Optional<FlinkCluster> c = FlinkCluster.find(dir);
    if (c.isEmpty()) {
      out.println("pagemark flink-cluster: no cluster was started in " + dir + "; nothing to stop");
      return ExitCode.OK;
    }
    int stopped = c.get().stop();
    out.printf("pagemark flink-cluster: stopped %d Flink processes of %s; logs stay in %s%n", stopped, dir,
        c.get().logDir());
    return ExitCode.OK;
  }

  private static int status(Path dir, PrintStream out, PrintStream err) throws IOException {
    Optional<FlinkCluster> found = FlinkCluster.find(dir);
    FlinkCluster.Status s = found.isPresent() ? found.get().status() : null;
    if (s == null || (!s.jobManagerAlive() && s.taskManagersAlive() == 0)) {
      err.println("pagemark flink-cluster: no cluster is running in " + dir
          + "; start one with: pagemark flink-cluster start");
      return ExitCode.NOT_FOUND;
    }
    FlinkCluster c = found.get();
    int wanted = c.spec().taskManagers();
    out.println("REST and web UI: http://" + c.restAddress());
    out.println("JobManager:      " + (s.jobManagerAlive() ? "running" : "NOT RUNNING")
        + s.overview().map(o -> " (Flink " + o.flinkVersion() + ")")
            .orElse(s.jobManagerAlive() ? ", not answering" : ""));
    out.printf("TaskManagers:    %s registered, %d of %d processes alive%n",
        s.overview().map(o -> Integer.toString(o.taskManagers())).orElse("?"), s.taskManagersAlive(), wanted);
    s.overview().ifPresent(o -> {
      out.printf("Slots:           %d total, %d available%n", o.slotsTotal(), o.slotsAvailable());
      out.printf("Jobs:            %d running, %d finished, %d failed, %d cancelled%n", o.jobsRunning(),
          o.jobsFinished(), o.jobsFailed(), o.jobsCancelled());
    });
    out.println("Processes:       " + c.pids());
    out.println("State and logs:  " + c.dir());
    if (!s.healthy(wanted)) {
      err.println("pagemark flink-cluster: the cluster is only partly up; see the logs in " + c.logDir()
          + ", then: pagemark flink-cluster stop && pagemark flink-cluster start");
      return ExitCode.FAILURE;
    }
    return ExitCode.OK;
  }
}
