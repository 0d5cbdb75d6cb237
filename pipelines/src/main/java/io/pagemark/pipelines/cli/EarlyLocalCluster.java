package io.pagemark.pipelines.cli;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.flink.api.common.Plan;
import org.apache.flink.api.dag.Pipeline;
import org.apache.flink.api.java.ExecutionEnvironment;
import org.apache.flink.api.java.ExecutionEnvironmentFactory;
import org.apache.flink.client.ClientUtils;
import org.apache.flink.client.deployment.executors.PipelineExecutorUtils;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.MiniClusterJobClient;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * Flink's local cluster for one batch pipeline, started beside Beam's translation of the pipeline instead of after
 * it. Beam's runner, given {@code [local]}, translates the pipeline (its rewrites, then each step: about 0.9 s of one
 * core in a build, cold code) and only then has Flink start a local cluster (its RPC system, services and REST
 * endpoint: another 0.9 s of one core) and submit the job. Given {@code [auto]}, Beam takes the environment Flink's
 * context offers; {@link #install} offers one whose cluster starts, on a thread of its own, the moment Beam asks for
 * the environment (the start of {@code run}), and whose executor submits the job to that cluster once the translation
 * is done: the two overlap on a machine of two cores or more (docs/build-speed.md, "Eleventh round").
 *
 * <p>The cluster is the one Flink's own local executor would start for the job: the configuration in {@code confDir},
 * managed memory and the class loader check as Beam sets them for {@code [local]}, one TaskManager with a slot per
 * task of the job's widest step ({@code parallelism}), a random REST port; the job's cluster shuts down when its result
 * is read, as Flink's does. A job wider than {@code parallelism} (not one of Beam's, which run every step alike) goes
 * to Flink's own local executor instead. The context is taken once: the next environment asked for is Flink's again.
 */
final class EarlyLocalCluster {
  /** The executor's name in the environment's configuration ({@code execution.target}). */
  static final String TARGET = "pagemark-early-local";

  /** The cluster started and not yet given a job: closed if another is started first (its pipeline never ran). */
  private static final AtomicReference<EarlyLocalCluster> WAITING = new AtomicReference<>();

  /** How many clusters were started early in this JVM (for tests). */
  static final AtomicInteger STARTED = new AtomicInteger();

  private final Configuration config;
  private final int slots;
  private final CompletableFuture<MiniCluster> cluster;

  private EarlyLocalCluster(Configuration config, int slots) {
    this.config = config;
    this.slots = slots;
    this.cluster = new CompletableFuture<>();
    EarlyLocalCluster unused = WAITING.getAndSet(this);
    if (unused != null) {
      unused.cluster.thenAccept(MiniCluster::closeAsync);
    }
    Thread starter = new Thread(this::start, "pagemark-local-cluster-start");
    starter.setDaemon(true);
    starter.start();
  }

  /**
   * Offers, once, an environment whose local cluster starts when Beam asks for it: see the class comment. The next
   * {@code ExecutionEnvironment.getExecutionEnvironment()} takes it, and the one after gets Flink's usual environment.
   */
  static void install(Path confDir, int parallelism) {
    Context.offer(() -> {
      Context.withdraw();
      return new EarlyLocalCluster(configuration(confDir), parallelism).environment();
    });
  }

  /** Takes back what {@link #install} offered and no one took (for tests that configure without running). */
  static void withdraw() {
    Context.withdraw();
  }

  /**
   * The cluster's configuration: {@code confDir}'s, with what Beam's {@code [local]} adds (managed memory as a
   * fraction of the free heap, no leaked-class-loader check) and a random REST port, as Flink's local executor binds.
   * Beam measures the free heap after a full collection, a pause of about 0.15 s at the start of every run; the heap
   * not yet used is measured here instead, which counts the garbage of the start-up as used: a few percent less.
   */
  static Configuration configuration(Path confDir) {
    Configuration config = GlobalConfiguration.loadConfiguration(confDir.toString());
    if (!config.containsKey(TaskManagerOptions.MANAGED_MEMORY_SIZE.key())) {
      long free = EnvironmentInformation.getSizeOfFreeHeapMemory();
      config.setString(TaskManagerOptions.MANAGED_MEMORY_SIZE.key(),
          String.valueOf((long) (free * config.get(TaskManagerOptions.MANAGED_MEMORY_FRACTION))));
    }
    if (!config.containsKey("classloader.check-leaked-classloader")) {
      config.setBoolean("classloader.check-leaked-classloader", false);
    }
    if (!config.contains(RestOptions.BIND_PORT)) {
      config.set(RestOptions.BIND_PORT, "0");
    }
    return config;
  }

  private void start() {
    STARTED.incrementAndGet();
    try {
      MiniCluster started = new MiniCluster(new MiniClusterConfiguration.Builder()
          .setConfiguration(config)
          .setNumTaskManagers(1)
          .setNumSlotsPerTaskManager(slots)
          .setRpcServiceSharing(RpcServiceSharing.SHARED)
          .build());
      started.start();
      cluster.complete(started);
    } catch (Throwable e) {
      cluster.completeExceptionally(e);
    }
  }

  /** The environment Beam translates into: attached, its jobs going to {@link #execute}. */
  private ExecutionEnvironment environment() {
    Configuration env = new Configuration(config);
    env.set(DeploymentOptions.TARGET, TARGET);
    env.set(DeploymentOptions.ATTACHED, true);
    PipelineExecutor executor = this::execute;
    PipelineExecutorFactory factory = new PipelineExecutorFactory() {
      @Override
      public String getName() {
        return TARGET;
      }

      @Override
      public boolean isCompatibleWith(Configuration configuration) {
        return TARGET.equals(configuration.get(DeploymentOptions.TARGET));
      }

      @Override
      public PipelineExecutor getExecutor(Configuration configuration) {
        return executor;
      }
    };
    PipelineExecutorServiceLoader loader = new PipelineExecutorServiceLoader() {
      @Override
      public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
        return factory;
      }

      @Override
      public Stream<String> getExecutorNames() {
        return Stream.of(TARGET);
      }
    };
    return new ExecutionEnvironment(loader, env, EarlyLocalCluster.class.getClassLoader());
  }

  /** Submits the job to the cluster started early (waiting for its start), as Flink's local executor does. */
  private CompletableFuture<JobClient> execute(Pipeline pipeline, Configuration configuration, ClassLoader classLoader)
      throws Exception {
    WAITING.compareAndSet(this, null);
    MiniCluster started;
    try {
      started = cluster.join();
    } catch (CompletionException e) {
      throw new IllegalStateException("Flink's local cluster did not start: " + e.getCause().getMessage(), e.getCause());
    }
    Plan plan = (Plan) pipeline;
    if (plan.getMaximumParallelism() > slots) {
      started.closeAsync();
      return org.apache.flink.client.deployment.executors.LocalExecutor.create(config)
          .execute(pipeline, configuration, classLoader);
    }
    plan.setDefaultParallelism(slots);
    Configuration effective = new Configuration(config);
    effective.addAll(configuration);
    JobGraph job = PipelineExecutorUtils.getJobGraph(plan, effective, classLoader);
    return started.submitJob(job)
        .thenApplyAsync(submitted -> {
          try {
            ClientUtils.waitUntilJobInitializationFinished(() -> started.getJobStatus(submitted.getJobID()).get(),
                () -> started.requestJobResult(submitted.getJobID()).get(), classLoader);
          } catch (Exception e) {
            throw new CompletionException(e);
          }
          return submitted;
        })
        .<JobClient>thenApply(submitted -> new MiniClusterJobClient(submitted.getJobID(), started, classLoader,
            MiniClusterJobClient.JobFinalizationBehavior.SHUTDOWN_CLUSTER))
        .whenComplete((client, failure) -> {
          if (failure != null) {
            started.closeAsync();
          }
        });
  }

  /** Flink's context environment, which only a subclass of {@link ExecutionEnvironment} may set. */
  private static final class Context extends ExecutionEnvironment {
    private Context() {}

    static synchronized void offer(ExecutionEnvironmentFactory factory) {
      initializeContextEnvironment(factory);
    }

    static synchronized void withdraw() {
      resetContextEnvironment();
    }
  }
}
