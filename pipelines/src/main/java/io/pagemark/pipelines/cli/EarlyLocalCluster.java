package io.pagemark.pipelines.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.flink.api.java.ExecutionEnvironment;
import org.apache.flink.api.java.ExecutionEnvironmentFactory;
import org.apache.flink.client.deployment.executors.LocalExecutor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * Flink's local cluster for a batch pipeline, started while Beam translates the pipeline rather than after. Beam's
 * runner creates its Flink environment first, then translates the pipeline, then submits it, and Flink's local
 * executor starts a cluster only when the job is submitted: the cluster's start (its RPC system, blob server,
 * task manager and REST endpoint; about a second here) and the translation ran one after the other on two cores.
 * Installed as Flink's context environment ({@link #install}), which Beam's runner takes for {@code --flinkMaster=[auto]};
 * the environment it creates starts the cluster on a thread of its own at once, and hands it to Flink's local
 * executor when the job is submitted, if the executor asks for the cluster it was started as (the same configuration,
 * slots and task managers); otherwise the early one is closed and the executor's own is started, as without this
 * class. The environment is configured as Beam configures its local one for {@code [local]} or {@code [auto]}, so a
 * job runs exactly as before (docs/build-speed.md, "Nineteenth round"). A cluster started for a pipeline that fails
 * before it is submitted (in Beam's translation) runs until the JVM exits, as pagemark's batch commands do when they
 * end.
 */
final class EarlyLocalCluster extends ExecutionEnvironment {
  /** What became of the last cluster started early: for tests. */
  enum Outcome {
    /** Handed to the job it was started for. */
    USED,
    /** Closed: the job asked for another cluster, which was started instead. */
    REPLACED
  }

  private static final AtomicReference<Outcome> LAST = new AtomicReference<>();
  private static final AtomicReference<ExecutionEnvironmentFactory> PENDING = new AtomicReference<>();

  private EarlyLocalCluster() {} // never made: a subclass only to reach the context environment's static methods

  /**
   * Makes the next {@link ExecutionEnvironment#getExecutionEnvironment()} (Beam's runner, for {@code [auto]}) start a
   * local cluster with the configuration in {@code confDir}, running {@code parallelism} tasks of a step at once;
   * with {@code managedMemoryOfHeap}, the cluster's managed memory is a fraction of the free heap unless the
   * configuration sets its size (as Beam's runner does for {@code [local]}). One environment only: the next call
   * gets Flink's own again.
   */
  static void install(String confDir, int parallelism, boolean managedMemoryOfHeap) {
    ExecutionEnvironmentFactory factory = new ExecutionEnvironmentFactory() {
      @Override
      public ExecutionEnvironment createExecutionEnvironment() {
        if (PENDING.compareAndSet(this, null)) {
          resetContextEnvironment();
        }
        return environment(GlobalConfiguration.loadConfiguration(confDir), parallelism, managedMemoryOfHeap);
      }
    };
    PENDING.set(factory);
    initializeContextEnvironment(factory);
  }

  /** Removes an environment {@link #install}ed and not taken yet; leaves any other context environment alone. */
  static void uninstall() {
    if (PENDING.getAndSet(null) != null) {
      resetContextEnvironment();
    }
  }

  /** Whether an environment {@link #install}ed is waiting to be taken. */
  static boolean pending() {
    return PENDING.get() != null;
  }

  /** What became of the last cluster started early, or null if none was handed over or replaced yet. */
  static Outcome lastOutcome() {
    return LAST.get();
  }

  private static ExecutionEnvironment environment(Configuration config, int parallelism, boolean managedMemoryOfHeap) {
    // as Beam's runner configures its local environment (FlinkExecutionEnvironments), and Flink's LocalEnvironment
    if (managedMemoryOfHeap && !config.containsKey(TaskManagerOptions.MANAGED_MEMORY_SIZE.key())) {
      long size = (long) (config.get(TaskManagerOptions.MANAGED_MEMORY_FRACTION)
          * EnvironmentInformation.getSizeOfFreeHeapMemoryWithDefrag());
      config.setString(TaskManagerOptions.MANAGED_MEMORY_SIZE.key(), String.valueOf(size));
    }
    if (!config.containsKey("classloader.check-leaked-classloader")) {
      config.setBoolean("classloader.check-leaked-classloader", false);
    }
    config.set(DeploymentOptions.TARGET, "local");
    config.set(DeploymentOptions.ATTACHED, true);
    Early early = new Early(clusterConfiguration(config, parallelism));
    early.startInBackground();
    ExecutionEnvironment env =
        new ExecutionEnvironment(new Executors(early), config, EarlyLocalCluster.class.getClassLoader());
    env.setParallelism(parallelism);
    return env;
  }

  /** The cluster Flink's local executor asks for to run a job of this parallelism (as its PerJobMiniClusterFactory). */
  static MiniClusterConfiguration clusterConfiguration(Configuration config, int parallelism) {
    Configuration c = new Configuration(config);
    if (!c.contains(RestOptions.BIND_PORT)) {
      c.set(RestOptions.BIND_PORT, "0");
    }
    int taskManagers = c.get(TaskManagerOptions.MINI_CLUSTER_NUM_TASK_MANAGERS);
    int slots = c.getOptional(TaskManagerOptions.NUM_TASK_SLOTS)
        .orElse((parallelism + taskManagers - 1) / taskManagers);
    return new MiniClusterConfiguration.Builder().setConfiguration(c).setNumTaskManagers(taskManagers)
        .setRpcServiceSharing(RpcServiceSharing.SHARED).setNumSlotsPerTaskManager(slots).build();
  }

  /** Whether a cluster started as {@code a} is the cluster {@code b} asks for. */
  static boolean sameCluster(MiniClusterConfiguration a, MiniClusterConfiguration b) {
    return a.getNumTaskManagers() == b.getNumTaskManagers()
        && a.getRpcServiceSharing() == b.getRpcServiceSharing()
        && a.getConfiguration().toMap().equals(b.getConfiguration().toMap());
  }

  /** Flink's local executor, given the early cluster when it asks for one like it. */
  private static final class Executors implements PipelineExecutorServiceLoader, PipelineExecutorFactory {
    private final Early early;
    /** Whether a job has been given its cluster: only the first may get the early one (a job closes its cluster). */
    private final AtomicBoolean handedOver = new AtomicBoolean();

    Executors(Early early) {
      this.early = early;
    }

    @Override
    public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
      return this;
    }

    @Override
    public Stream<String> getExecutorNames() {
      return Stream.of(LocalExecutor.NAME);
    }

    @Override
    public String getName() {
      return LocalExecutor.NAME;
    }

    @Override
    public boolean isCompatibleWith(Configuration configuration) {
      return LocalExecutor.NAME.equalsIgnoreCase(configuration.get(DeploymentOptions.TARGET));
    }

    @Override
    public PipelineExecutor getExecutor(Configuration configuration) {
      return LocalExecutor.createWithFactory(configuration, asked -> {
        if (handedOver.compareAndSet(false, true) && sameCluster(early.configuration, asked)) {
          LAST.set(Outcome.USED);
          return early;
        }
        early.closeAsync(); // not the cluster asked for, or closed already with the first job
        LAST.set(Outcome.REPLACED);
        return new MiniCluster(asked);
      });
    }
  }

  /** A local cluster that starts when it is made; {@link #start} waits for that start (and fails as it failed). */
  private static final class Early extends MiniCluster {
    final MiniClusterConfiguration configuration;
    private final CompletableFuture<Void> started = new CompletableFuture<>();

    Early(MiniClusterConfiguration configuration) {
      super(configuration);
      this.configuration = configuration;
    }

    void startInBackground() {
      Thread starter = new Thread(() -> {
        try {
          super.start();
          started.complete(null);
        } catch (Throwable t) {
          started.completeExceptionally(t);
        }
      }, "pagemark-local-cluster-start");
      starter.setDaemon(true);
      starter.start();
    }

    @Override
    public void start() throws Exception {
      try {
        started.join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof Exception cause) {
          throw cause;
        }
        throw e;
      }
    }
  }
}
