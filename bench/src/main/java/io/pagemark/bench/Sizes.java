package io.pagemark.bench;

import java.util.List;

/**
 * The sizes of one run of the suite: {@link #FULL} for the table in docs/bench.md, {@link #QUICK} for CI (the same figures
 * at smaller sizes, except where a size names the figure, such as the deepest page).
 *
 * @param mode "full" or "quick"
 * @param deepItems items of the one group in the deep-page table
 * @param deepPages the pages whose cost is measured (20 items a page)
 * @param walkedPages the LastEvaluatedKey walk issues every Query up to this page; beyond it, only every
 *     {@code sampleEvery}-th page's Query (and each measured page's) is issued, and the rest is scaled from them
 * @param sampleEvery the sampling step of the walk beyond {@code walkedPages}
 * @param warmLookups timed lookups on a warm page cache
 * @param coldLookups timed lookups on a cold page cache (each evicts the group file first)
 * @param queries timed DynamoDB Local Queries (the latency baseline)
 * @param builds the throughput builds: runner and synthetic entries
 * @param peakEntries entries of the peak-memory build (one group)
 * @param maxPartEntries the builds' {@code --maxPartEntries}
 * @param peakHeap {@code -Xmx} of the peak-memory build's JVM
 * @param peakRunner the runner of the peak-memory build
 * @param commit the commit benchmark's sizes
 */
public record Sizes(
    String mode,
    int deepItems,
    List<Integer> deepPages,
    int walkedPages,
    int sampleEvery,
    int warmLookups,
    int coldLookups,
    int queries,
    List<Build> builds,
    long peakEntries,
    long maxPartEntries,
    String peakHeap,
    Runner peakRunner,
    Commit commit) {
  public static final int PAGE_SIZE = 20;

  /**
   * The commit benchmark: {@code changes} changes merged into one group of {@code entries}, median of {@code rounds}
   * (after one round of warm-up).
   */
  public record Commit(long entries, int changes, int rounds) {}

  /**
   * A throughput build: a runner, the synthetic entries it builds (see {@link SyntheticEntries}), and how many rounds
   * of it (each its fixed-cost build, the build and {@code sort}, in turns) the figures take the median of (odd).
   */
  public record Build(Runner runner, SyntheticEntries entries, int rounds) {
    public Build {
      if (rounds < 1 || rounds % 2 == 0) {
        throw new IllegalArgumentException("rounds must be odd and at least 1, not " + rounds);
      }
    }
  }

  /** How a build JVM runs Beam. */
  public enum Runner {
    /**
     * Beam's DirectRunner with its test-only checks off ({@code --enforceImmutability=false
     * --enforceEncodability=false}): they encode every element again and are not what a build needs.
     */
    DIRECT("DirectRunner", "--runner=DirectRunner", "--enforceImmutability=false", "--enforceEncodability=false"),
    /** Flink's local mini cluster in the build's JVM, parallelism 2. */
    FLINK("local Flink", "--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");

    private final String label;
    private final List<String> options;

    Runner(String label, String... options) {
      this.label = label;
      this.options = List.of(options);
    }

    public String label() {
      return label;
    }

    public List<String> options() {
      return options;
    }
  }

  public static final Sizes FULL =
      new Sizes("full", 200_020, List.of(1, 10, 100, 1_000, 10_000), 1_000, 50, 50_000, 200, 500,
          List.of(
              new Build(Runner.DIRECT, new SyntheticEntries(250_000, 250, 50_000), 3),
              new Build(Runner.FLINK, new SyntheticEntries(10_000_000, 10_000, 2_000_000), 3)),
          2_000_000, 200_000, "256m", Runner.FLINK, new Commit(2_300_000, 1_000, 5));

  public static final Sizes QUICK =
      new Sizes("quick", 2_020, List.of(1, 10, 100), 10, 10, 5_000, 30, 200,
          List.of(
              new Build(Runner.DIRECT, new SyntheticEntries(50_000, 500, 10_000), 3),
              new Build(Runner.FLINK, new SyntheticEntries(50_000, 500, 10_000), 1)),
          10_000, 1_000, "256m", Runner.FLINK, new Commit(100_000, 1_000, 3));
}
