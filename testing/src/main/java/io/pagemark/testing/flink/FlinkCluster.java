package io.pagemark.testing.flink;

import io.pagemark.testing.LocalProcess;
import io.pagemark.testing.LocalService;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A standalone Flink session cluster on this machine: one JobManager and N TaskManager JVMs started from Flink's own
 * entrypoints, bound to 127.0.0.1 on free ports, sized for a small machine. Everything it writes (configuration, logs,
 * process ids, temporary files) lives in one state folder; a cluster started by one process can be found, queried and
 * stopped by another through that folder. Flink's jars come from the build's
 * {@code testing/flink-cluster/target/lib}. As a {@link LocalService}, closing it is {@link #stop()}.
 */
public final class FlinkCluster implements LocalService {
  /** System property (or environment variable PAGEMARK_FLINK_HOME) naming the folder with Flink's lib/. */
  public static final String HOME_PROPERTY = FlinkJvm.HOME_PROPERTY;
  public static final String STATE_FILE = "cluster.properties";
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  /**
   * The cluster's size. The defaults fit a 2-core machine: 2 slots per TaskManager, JobManager process 768m,
   * TaskManager process 1280m of which Flink's calculator gives about 490m to the heap (managed memory 10%, network
   * 128m; 1024m TaskManagers run out of network buffers at parallelism 4).
   */
  public record Spec(int taskManagers, int slotsPerTaskManager, String jobManagerMemory, String taskManagerMemory) {
    public Spec {
      if (taskManagers < 1 || taskManagers > 16) {
        throw new IllegalArgumentException("--taskmanagers must be between 1 and 16, not " + taskManagers);
      }
      if (slotsPerTaskManager < 1 || slotsPerTaskManager > 16) {
        throw new IllegalArgumentException("--slots must be between 1 and 16, not " + slotsPerTaskManager);
      }
      checkMemory("jobManagerMemory", jobManagerMemory);
      checkMemory("taskManagerMemory", taskManagerMemory);
    }

    public static Spec of(int taskManagers) {
      return new Spec(taskManagers, 2, "768m", "1280m");
    }

    private static void checkMemory(String option, String value) {
      if (value == null || !value.matches("[1-9][0-9]*[mg]")) {
        throw new IllegalArgumentException("--" + option + " must look like 1280m or 2g, not \"" + value + "\"");
      }
    }
  }

  /** What {@link #status()} found: the processes alive and, if the JobManager answers, its overview. */
  public record Status(boolean jobManagerAlive, int taskManagersAlive, Optional<ClusterOverview> overview) {
    /** True when every process is alive and every TaskManager has registered. */
    public boolean healthy(int taskManagers) {
      return jobManagerAlive && taskManagersAlive == taskManagers
          && overview.map(o -> o.taskManagers() == taskManagers).orElse(false);
    }
  }

  private final Path dir;
  private final Spec spec;
  private final String restAddress;
  private final long jobManagerPid;
  private final List<Long> taskManagerPids;

  private FlinkCluster(Path dir, Spec spec, String restAddress, long jobManagerPid, List<Long> taskManagerPids) {
    this.dir = dir;
    this.spec = spec;
    this.restAddress = restAddress;
    this.jobManagerPid = jobManagerPid;
    this.taskManagerPids = List.copyOf(taskManagerPids);
  }

  /**
   * Starts a cluster whose state lives in {@code dir} and returns once every TaskManager has registered, printing a
   * line per step to {@code progress}. Fails if a cluster of this folder is still running; stops whatever it started
   * if it fails itself, and says why with the tail of the failing process's log.
   */
  public static FlinkCluster start(Path dir, Spec spec, PrintStream progress) throws IOException {
    dir = dir.toAbsolutePath().normalize();
    Optional<FlinkCluster> previous = find(dir);
    if (previous.isPresent() && previous.get().anyAlive()) {
      throw new IllegalStateException("a Flink cluster of " + dir + " is already running at http://"
          + previous.get().restAddress + "; stop it first (pagemark flink-cluster stop)");
    }
    long started = System.nanoTime();
    FlinkClusterFiles files = FlinkClusterFiles.write(dir, spec, LocalProcess.freePort(), LocalProcess.freePort());
    Path lib = FlinkJvm.lib();
    List<String> jmResources = FlinkJvm.resourceParams(lib, files, "GET_JM_RESOURCE_PARAMS");
    List<String> tmResources = FlinkJvm.resourceParams(lib, files, "GET_TM_RESOURCE_PARAMS");
    FlinkCluster cluster = new FlinkCluster(dir, spec, files.restAddress(), -1, List.of());
    try {
      Process jm = FlinkJvm.launch(lib, files, "jobmanager", jmResources, FlinkJvm.JOB_MANAGER_MAIN);
      cluster = cluster.with(jm.pid(), List.of());
      cluster.save();
      String rest = files.restAddress();
      cluster.await(rest, o -> true, "the JobManager's REST endpoint", files);
      progress.printf("flink-cluster: JobManager up at http://%s (%.1f s)%n", files.restAddress(),
          secondsSince(started));
      List<Long> tms = new ArrayList<>();
      for (int i = 1; i <= spec.taskManagers(); i++) {
        tms.add(FlinkJvm.launch(lib, files, "taskmanager-" + i, tmResources, FlinkJvm.TASK_MANAGER_MAIN).pid());
        cluster = cluster.with(jm.pid(), tms);
        cluster.save();
      }
      int slots = spec.taskManagers() * spec.slotsPerTaskManager();
      cluster.await(rest, o -> o.taskManagers() == spec.taskManagers() && o.slotsTotal() == slots,
          spec.taskManagers() + " TaskManagers with " + slots + " slots", files);
      progress.printf("flink-cluster: %d TaskManagers registered, %d slots (%.1f s)%n", spec.taskManagers(), slots,
          secondsSince(started));
      return cluster;
    } catch (IOException | RuntimeException e) {
      cluster.stop();
      throw e;
    }
  }

  /** The cluster whose state is in {@code dir}, if one was started there (its processes may have ended since). */
  public static Optional<FlinkCluster> find(Path dir) throws IOException {
    dir = dir.toAbsolutePath().normalize();
    Path state = dir.resolve(STATE_FILE);
    if (!Files.isRegularFile(state)) {
      return Optional.empty();
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(state)) {
      p.load(in);
    }
    try {
      Spec spec = new Spec(Integer.parseInt(p.getProperty("taskmanagers")), Integer.parseInt(p.getProperty("slots")),
          p.getProperty("jobmanager.memory"), p.getProperty("taskmanager.memory"));
      List<Long> tms = p.getProperty("taskmanager.pids").isEmpty()
          ? List.of()
          : Arrays.stream(p.getProperty("taskmanager.pids").split(",")).map(Long::parseLong)
              .collect(Collectors.toList());
      return Optional.of(new FlinkCluster(dir, spec, p.getProperty("rest.address"),
          Long.parseLong(p.getProperty("jobmanager.pid")), tms));
    } catch (RuntimeException e) {
      throw new IOException("unreadable cluster state " + state + " (" + e + "); remove " + dir + " if no Flink"
          + " process of it runs", e);
    }
  }

  /** {@code host:port} of the JobManager's REST endpoint and web UI: the {@code --flinkMaster} of a job. */
  public String restAddress() {
    return restAddress;
  }

  @Override
  public String name() {
    return "Flink session cluster";
  }

  /** The REST endpoint and web UI, {@code http://127.0.0.1:PORT}. */
  @Override
  public String endpoint() {
    return "http://" + restAddress;
  }

  /** The REST port (a restart picks new ports for all of its processes). */
  @Override
  public int port() {
    return Integer.parseInt(restAddress.substring(restAddress.lastIndexOf(':') + 1));
  }

  /** Whether the JobManager and every TaskManager still run. */
  @Override
  public boolean isAlive() {
    Status s = status();
    return s.jobManagerAlive() && s.taskManagersAlive() == currentTaskManagerPids().size();
  }

  @Override
  public String exitStatus() {
    Status s = status();
    return "JobManager " + (s.jobManagerAlive() ? "running" : "gone") + ", " + s.taskManagersAlive() + " of "
        + currentTaskManagerPids().size() + " TaskManagers running";
  }

  /** The REST endpoint answers and counts every TaskManager as registered. */
  @Override
  public void ping() throws IOException {
    ClusterOverview o = ClusterOverview.of(restAddress);
    if (o.taskManagers() != spec.taskManagers()) {
      throw new IOException(o.taskManagers() + " of " + spec.taskManagers() + " TaskManagers registered");
    }
  }

  /** Each process's log and console output: the JobManager's first. */
  @Override
  public List<Path> logs() {
    List<Path> logs = new ArrayList<>();
    List<String> processes = new ArrayList<>(List.of("jobmanager"));
    for (int i = 1; i <= spec.taskManagers(); i++) {
      processes.add("taskmanager-" + i);
    }
    for (String p : processes) {
      logs.add(logDir().resolve(p + ".log"));
      logs.add(logDir().resolve(p + ".out"));
    }
    return logs;
  }

  @Override
  public void close() {
    stop();
  }

  @Override
  public String toString() {
    return name() + " at " + endpoint();
  }

  public Spec spec() {
    return spec;
  }

  public Path dir() {
    return dir;
  }

  public Path logDir() {
    return dir.resolve("log");
  }

  /** Which processes are alive, and the JobManager's overview if it answers. */
  public Status status() {
    int tms =
        (int) currentTaskManagerPids().stream().filter(pid -> process(pid, FlinkJvm.TASK_MANAGER_MAIN).isPresent())
            .count();
    boolean jm = process(jobManagerPid, FlinkJvm.JOB_MANAGER_MAIN).isPresent();
    Optional<ClusterOverview> overview = Optional.empty();
    if (jm) {
      try {
        overview = Optional.of(ClusterOverview.of(restAddress));
      } catch (IOException e) {
        // a JobManager that does not answer shows as such in the status
      }
    }
    return new Status(jm, tms, overview);
  }

  /** Process ids of the JobManager and the TaskManagers, for the status line. */
  public List<Long> pids() {
    List<Long> all = new ArrayList<>();
    all.add(jobManagerPid);
    all.addAll(currentTaskManagerPids());
    return all;
  }

  /**
   * Stops the cluster's processes (TaskManagers first, each asked to shut down, then killed after 30 s) and removes
   * the state file; logs stay. Only processes that run this cluster's configuration are signalled, so a process id
   * reused by the system is never touched. Returns how many processes were stopped.
   */
  public int stop() {
    List<ProcessHandle> alive = new ArrayList<>();
    currentTaskManagerPids().forEach(pid -> process(pid, FlinkJvm.TASK_MANAGER_MAIN).ifPresent(alive::add));
    process(jobManagerPid, FlinkJvm.JOB_MANAGER_MAIN).ifPresent(alive::add);
    alive.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    for (ProcessHandle h : alive) {
      try {
        h.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        h.destroyForcibly();
      } catch (Exception e) {
        h.destroyForcibly();
      }
    }
    try {
      Files.deleteIfExists(dir.resolve(STATE_FILE));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return alive.size();
  }

  /**
   * Kills TaskManager {@code n} (from 1) with SIGKILL, as the kernel's OOM killer or a lost machine would, and returns
   * once it has exited. Its jobs' tasks fail; {@link #restartTaskManager} brings it back.
   *
   * @throws IllegalStateException if that TaskManager is not running
   */
  public void killTaskManager(int n) throws IOException {
    ProcessHandle tm = process(currentTaskManagerPids().get(n - 1), FlinkJvm.TASK_MANAGER_MAIN)
        .orElseThrow(() -> new IllegalStateException("TaskManager " + n + " of " + this + " is not running"));
    tm.destroyForcibly();
    try {
      tm.onExit().get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IOException("TaskManager " + n + " (pid " + tm.pid() + ") did not exit after SIGKILL", e);
    }
  }

  /**
   * Starts TaskManager {@code n} (from 1) again, with the cluster's configuration, after it died; returns the cluster
   * with its new process once the JobManager lists it. The new process id is saved in the state folder, so every
   * handle of this cluster (a shared one too) checks and stops the new process.
   */
  public FlinkCluster restartTaskManager(int n) throws IOException {
    FlinkClusterFiles files = FlinkClusterFiles.existing(dir, restAddress);
    Path lib = FlinkJvm.lib();
    Process tm = FlinkJvm.launch(lib, files, "taskmanager-" + n,
        FlinkJvm.resourceParams(lib, files, "GET_TM_RESOURCE_PARAMS"), FlinkJvm.TASK_MANAGER_MAIN);
    List<Long> tms = new ArrayList<>(currentTaskManagerPids());
    tms.set(n - 1, tm.pid());
    FlinkCluster restarted = with(jobManagerPid, tms);
    restarted.save();
    int before = ClusterOverview.of(restAddress).taskManagers();
    // the dead TaskManager may still be listed until its heartbeats fail: wait for one more than that, or all
    restarted.await(restAddress, o -> o.taskManagers() > before || o.taskManagers() == spec.taskManagers(),
        "TaskManager " + n + " registered again", files);
    return restarted;
  }

  /**
   * The TaskManagers' process ids as the state folder records them now: a TaskManager started again
   * ({@link #restartTaskManager}) through another handle of this cluster (a shared one) has a new id.
   */
  private List<Long> currentTaskManagerPids() {
    try {
      return find(dir).filter(c -> c.restAddress.equals(restAddress)).map(c -> c.taskManagerPids)
          .orElse(taskManagerPids);
    } catch (IOException e) {
      return taskManagerPids;
    }
  }

  boolean anyAlive() {
    Status s = status();
    return s.jobManagerAlive() || s.taskManagersAlive() > 0;
  }

  /** The live process {@code pid}, if it is one of this cluster's (its command line names this cluster's conf). */
  private Optional<ProcessHandle> process(long pid, String mainClass) {
    if (pid <= 0) {
      return Optional.empty();
    }
    String conf = dir.resolve("conf").toString();
    return ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .filter(h -> h.info().commandLine().map(c -> c.contains(mainClass) && c.contains(conf)).orElse(false));
  }

  private FlinkCluster with(long jm, List<Long> tms) {
    return new FlinkCluster(dir, spec, restAddress, jm, tms);
  }

  private void save() throws IOException {
    Properties p = new Properties();
    p.setProperty("rest.address", restAddress);
    p.setProperty("taskmanagers", Integer.toString(spec.taskManagers()));
    p.setProperty("slots", Integer.toString(spec.slotsPerTaskManager()));
    p.setProperty("jobmanager.memory", spec.jobManagerMemory());
    p.setProperty("taskmanager.memory", spec.taskManagerMemory());
    p.setProperty("jobmanager.pid", Long.toString(jobManagerPid));
    p.setProperty("taskmanager.pids", taskManagerPids.stream().map(String::valueOf).collect(Collectors.joining(",")));
    Path tmp = dir.resolve(STATE_FILE + ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      p.store(out, "pagemark flink-cluster: a session cluster started from " + dir);
    }
    Files.move(tmp, dir.resolve(STATE_FILE), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** Polls the overview until {@code ready} holds; fails early, with the log's tail, if a process of ours ends. */
  private void await(String rest, java.util.function.Predicate<ClusterOverview> ready, String what,
      FlinkClusterFiles files) throws IOException {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    String last = "no answer yet";
    while (System.nanoTime() < deadline) {
      if (process(jobManagerPid, FlinkJvm.JOB_MANAGER_MAIN).isEmpty()) {
        throw new IOException("the Flink JobManager exited during startup; its log ends with:\n"
            + files.tail("jobmanager"));
      }
      for (int i = 0; i < taskManagerPids.size(); i++) {
        if (process(taskManagerPids.get(i), FlinkJvm.TASK_MANAGER_MAIN).isEmpty()) {
          throw new IOException("Flink TaskManager " + (i + 1) + " exited during startup; its log ends with:\n"
              + files.tail("taskmanager-" + (i + 1)));
        }
      }
      try {
        ClusterOverview o = ClusterOverview.of(rest);
        if (ready.test(o)) {
          return;
        }
        last = o.taskManagers() + " TaskManagers, " + o.slotsTotal() + " slots";
      } catch (IOException e) {
        last = e.getMessage();
      }
      try {
        Thread.sleep(250); // a poll interval, not a wait for the outcome: the loop checks the condition
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for " + what, e);
      }
    }
    throw new IOException("no " + what + " within " + STARTUP_TIMEOUT.toSeconds() + " s (last seen: " + last
        + "); logs are in " + files.logDir());
  }

  private static double secondsSince(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }
}
