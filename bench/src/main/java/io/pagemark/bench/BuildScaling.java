package io.pagemark.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.testing.flink.FlinkCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How the build's cost grows (issue #17's scaling runs): the same synthetic build ({@link BuildJob}) submitted to a
 * Flink session cluster of {@value #TASK_MANAGERS} TaskManagers on this machine at several parallelisms, and on
 * Flink inside the build's JVM ({@code [local]}, parallelism 2) at growing sizes, each beside {@code LC_ALL=C sort}
 * of the same entries run right after it ({@link SortBaseline}). The cluster is started for this benchmark and
 * stopped at its end, also when a build fails.
 */
final class BuildScaling implements Bench {
  static final int TASK_MANAGERS = 2;

  /** One scaling run's sizes: the cluster's build and parallelisms, and the local builds' entries. */
  record Plan(SyntheticEntries clusterBuild, List<Integer> parallelisms, List<SyntheticEntries> localBuilds,
      long maxPartEntries) {}

  /**
   * Full: 10 M entries over 10,000 groups (one of 2 M) at parallelism 1, 2, 4, and 1 M, 10 M, 30 M entries on
   * {@code [local]} (a thousand entries a group, a fifth in the hot group). Quick: 50,000 entries at parallelism 2
   * and on {@code [local]}.
   */
  static Plan plan(Sizes sizes) {
    if (sizes.mode().equals("quick")) {
      return new Plan(spec(50_000), List.of(2), List.of(spec(50_000)), 1_000);
    }
    return new Plan(spec(10_000_000), List.of(1, 2, 4),
        List.of(spec(1_000_000), spec(10_000_000), spec(30_000_000)), sizes.maxPartEntries());
  }

  /** The shape of figure 3's builds at any size: 1,000 entries a group on average, a fifth of them in one group. */
  static SyntheticEntries spec(long entries) {
    return new SyntheticEntries(entries, (int) Math.max(2, entries / 1_000), entries / 5);
  }

  static String clusterName(SyntheticEntries s, int parallelism) {
    return String.format(Locale.ROOT, "build on a %d-TaskManager session cluster, parallelism %d, %,d entries,"
        + " vs GNU sort", TASK_MANAGERS, parallelism, s.entries());
  }

  static String localName(SyntheticEntries s) {
    return String.format(Locale.ROOT, "build time per entry, local Flink, %,d entries, vs GNU sort", s.entries());
  }

  @Override
  public String id() {
    return "build-scaling";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    Plan plan = plan(sizes);
    List<String> names = new ArrayList<>();
    plan.parallelisms().forEach(p -> names.add(clusterName(plan.clusterBuild(), p)));
    plan.localBuilds().forEach(s -> names.add(localName(s)));
    return names;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    Plan plan = plan(sizes);
    Path clusterDir = context.dir("flink-cluster").toAbsolutePath();
    context.progress().printf("bench: starting a Flink session cluster of %d TaskManagers (state in %s) ...%n",
        TASK_MANAGERS, clusterDir);
    try (FlinkCluster cluster = FlinkCluster.start(clusterDir, FlinkCluster.Spec.of(TASK_MANAGERS),
        context.progress())) {
      for (int parallelism : plan.parallelisms()) {
        SyntheticEntries s = plan.clusterBuild();
        // The job stages this JVM's classpath (Beam's default): the bench's classes and their dependencies, as a
        // user's job jar would hold them; the cluster loads its own Flink classes first.
        List<String> options = List.of("--runner=FlinkRunner", "--flinkMaster=" + cluster.restAddress(),
            "--parallelism=" + parallelism);
        Measured m = measure(context, s, plan.maxPartEntries(), options,
            "cluster-p" + parallelism + "-" + s.entries(),
            String.format(Locale.ROOT, "the session cluster at parallelism %d", parallelism));
        double jobSeconds = lastJobSeconds(cluster.restAddress());
        context.report(new Figure(clusterName(s, parallelism), s.entries() / m.buildSeconds, "entries/s",
            "LC_ALL=C GNU sort of the same entries as text, written out", s.entries() / m.sortSeconds,
            "entries/s", m.note(s, plan.maxPartEntries(), String.format(Locale.ROOT, "%d TaskManager JVMs of %s"
                + " with %d slots each; of the build's time, the job ran %.1f s on the cluster (its REST API's"
                + " duration), the rest is the client's translation, staging of its classpath and submission",
                TASK_MANAGERS, cluster.spec().taskManagerMemory(), cluster.spec().slotsPerTaskManager(),
                jobSeconds))));
      }
    }
    for (SyntheticEntries s : plan.localBuilds()) {
      Measured m = measure(context, s, plan.maxPartEntries(), Sizes.Runner.FLINK.options(),
          "local-" + s.entries(), "local Flink (parallelism 2)");
      context.report(new Figure(localName(s), m.buildSeconds / s.entries() * 1e6, "µs/entry",
          "LC_ALL=C GNU sort of the same entries as text, written out", m.sortSeconds / s.entries() * 1e6,
          "µs/entry", m.note(s, plan.maxPartEntries(), "Flink inside the build's JVM, parallelism 2")));
    }
  }

  /** The duration of the cluster's most recently started finished job, from {@code /jobs/overview}. */
  static double lastJobSeconds(String restAddress) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://" + restAddress + "/jobs/overview"))
            .timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode newest = null;
    for (JsonNode job : new ObjectMapper().readTree(r.body()).path("jobs")) {
      if (job.path("state").asText().equals("FINISHED")
          && (newest == null || job.path("start-time").asLong() > newest.path("start-time").asLong())) {
        newest = job;
      }
    }
    if (newest == null) {
      throw new IllegalStateException("the Flink cluster at " + restAddress + " lists no finished job: " + r.body());
    }
    return newest.path("duration").asLong() / 1e3;
  }

  /** One build and the sort of the same entries right after it. */
  private static Measured measure(Context context, SyntheticEntries s, long maxPart, List<String> runnerOptions,
      String dirName, String where) throws Exception {
    Path dir = context.dir(dirName).toAbsolutePath();
    context.progress().printf("bench: building %,d synthetic entries over %,d groups (one of %,d) on %s ...%n",
        s.entries(), s.groups(), s.hotEntries(), where);
    List<String> args = new ArrayList<>(List.of(Long.toString(s.entries()), Integer.toString(s.groups()),
        Long.toString(s.hotEntries()), Long.toString(maxPart), dir.resolve("index").toString()));
    args.addAll(runnerOptions);
    String load = ResultsTable.loadAverage();
    Map<String, String> r = ChildJvm.run("4g", BuildJob.class, args, dir.resolve("build.log"), context.progress());
    double build = Double.parseDouble(r.get("seconds"));
    context.progress().printf("bench: built in %.1f s; sorting the same %,d entries with GNU sort ...%n", build,
        s.entries());
    double sort = SortBaseline.seconds(s, dir);
    // Each build's index stays until the suite's next run has measured (about 1 GB for the full run's six builds):
    // the next build here creates as many files, and creating files right after many were deleted is slow on this
    // machine's file system (see Suite.run).
    return new Measured(build, sort, load, ResultsTable.loadAverage());
  }

  private record Measured(double buildSeconds, double sortSeconds, String loadBefore, String loadAfter) {
    String note(SyntheticEntries s, long maxPart, String how) {
      return String.format(Locale.ROOT, "%,d entries over %,d groups (one of %,d), parts of %,d; %s; build %.1f s"
          + " (pipeline run to published build, client JVM start excluded), sort %.1f s; load average %s before,"
          + " %s after", s.entries(), s.groups(), s.hotEntries(), maxPart, how, buildSeconds, sortSeconds,
          loadBefore, loadAfter);
    }
  }
}
