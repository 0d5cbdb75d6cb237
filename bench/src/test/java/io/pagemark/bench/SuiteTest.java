package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The suite's bookkeeping with stand-in benchmarks: every declared figure must be produced. */
class SuiteTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /** Declares figures a and b; reports those in {@code reports}; throws if {@code fail}. */
  private static Bench bench(List<String> reports, boolean fail) {
    return bench(List.of("a", "b"), reports, fail);
  }

  private static Bench bench(List<String> declares, List<String> reports, boolean fail) {
    return new Bench() {
      @Override
      public String id() {
        return "fake";
      }

      @Override
      public List<String> figures(Sizes sizes) {
        return declares;
      }

      @Override
      public void run(Sizes sizes, Context context) {
        for (String name : reports) {
          context.report(new Figure(name, 2, "ms", "the baseline", 4, "ms", "how"));
        }
        if (fail) {
          throw new IllegalStateException("broken on purpose");
        }
      }
    };
  }

  private int run(Bench b) {
    return Suite.run(List.of(b), Sizes.QUICK, dir.resolve("results.md"), dir.resolve("work"), "--quick",
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void everyFigureProducedExitsZeroAndWritesTheTable() throws Exception {
    assertThat(run(bench(List.of("a", "b"), false)), is(0));
    assertThat(out(), containsString("a: 2 ms (baseline: 4 ms, ratio 0.5x)\n"));
    assertThat(out(), containsString("b: 2 ms (baseline: 4 ms, ratio 0.5x)\n"));
    assertThat(out(), not(containsString("pending:")));
    assertThat(out(), containsString("bench: all 2 figures produced in "));
    String table = Files.readString(dir.resolve("results.md"));
    assertThat(table, containsString("| a | 2 ms | the baseline | 4 ms | 0.5x | how |"));
    assertThat(table, containsString("`bench/run --quick` (quick mode)"));
    assertThat(table, containsString("cores (nproc)"));
    assertThat(table, not(containsString("Missing")));
    assertThat(table, not(containsString("Pending")));
    assertThat(table, containsString("all benchmarks took "));
  }

  /** Deleting many files makes creating files slow for minutes on some file systems: never before a measurement. */
  @Test
  void theLastRunsWorkIsDeletedOnlyAfterEveryBenchmark() throws Exception {
    Path work = dir.resolve("work");
    Files.createDirectories(work.resolve("builds"));
    Files.writeString(work.resolve("builds/last-run"), "x");
    boolean[] seen = new boolean[2];
    Bench checks = new Bench() {
      @Override
      public String id() {
        return "checks";
      }

      @Override
      public List<String> figures(Sizes sizes) {
        return List.of("a");
      }

      @Override
      public void run(Sizes sizes, Context context) throws Exception {
        seen[0] = Files.exists(Suite.previousWork(work).resolve("builds/last-run"));
        try (var files = Files.list(work)) {
          seen[1] = files.findAny().isEmpty();
        }
        context.report(new Figure("a", 2, "ms", "the baseline", 4, "ms", "how"));
      }
    };
    assertThat(run(checks), is(0));
    assertThat("the last run's files were still there while the benchmark ran", seen[0], is(true));
    assertThat("the benchmark started in an empty work directory", seen[1], is(true));
    assertThat(Files.exists(Suite.previousWork(work)), is(false));
    assertThat(Files.isDirectory(work), is(true));
    assertThat("a few files deleted leave no marker", Files.exists(Suite.deletedMarker(work)), is(false));
  }

  /** After a run deletes many files, the next one waits for the file system to reuse their inodes freely. */
  @Test
  void aRunThatDeletedManyFilesMakesTheNextOneWait() throws Exception {
    Path work = dir.resolve("work");
    Files.createDirectories(work);
    for (int i = 0; i < Suite.MANY_FILES; i++) {
      Files.writeString(work.resolve("group-" + i), "x");
    }
    Path marker = Suite.deletedMarker(work);
    assertThat(Suite.settleWait(marker, Instant.now()), is(Duration.ZERO));
    Instant before = Instant.now();
    assertThat(run(bench(List.of("a", "b"), false)), is(0)); // moves the files aside: deleted after the figures
    assertThat(Files.exists(Suite.previousWork(work)), is(false));
    Instant deleted = Files.getLastModifiedTime(marker).toInstant();
    assertThat(deleted.isBefore(before.minusSeconds(1)), is(false));
    assertThat(Suite.settleWait(marker, deleted), is(Suite.SETTLE));
    assertThat(Suite.settleWait(marker, deleted.plusSeconds(60)), is(Suite.SETTLE.minusSeconds(60)));
    assertThat(Suite.settleWait(marker, deleted.plus(Suite.SETTLE)), is(Duration.ZERO));
  }

  @Test
  void aMissingFigureExitsOne() throws Exception {
    assertThat(run(bench(List.of("a"), false)), is(1));
    assertThat(out(), containsString("1 figures produced, 1 missing"));
    assertThat(Files.readString(dir.resolve("results.md")), containsString("**Missing figures**"));
  }

  @Test
  void aFailingBenchmarkExitsOneAndTheOthersStillRun() {
    Bench good = bench(List.of("a", "b"), false);
    int code = Suite.run(List.of(bench(List.of("c"), List.of(), true), good), Sizes.QUICK, dir.resolve("r.md"),
        dir.resolve("work"), "", new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code, is(1));
    assertThat(err.toString(StandardCharsets.UTF_8), containsString("broken on purpose"));
    assertThat(out(), containsString("a: 2 ms"));
    assertThat(out(), containsString("2 figures produced, 1 missing, 1 benchmarks failed"));
  }

  @Test
  void aBenchmarkThatFailsAfterReportingEverythingStillFailsTheRun() {
    assertThat(run(bench(List.of("a", "b"), true)), is(1));
  }

  @Test
  void usageErrorsExitTwo() {
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    assertThat(Suite.run(List.of("--fast"), o, e), is(2));
    assertThat(Suite.run(List.of("--only=nope"), o, e), is(2));
    assertThat(err.toString(StandardCharsets.UTF_8), containsString("no benchmark nope; there are deep-pages"));
  }

  @Test
  void everyBenchmarkDeclaresItsFiguresInBothModes() {
    for (Sizes s : List.of(Sizes.QUICK, Sizes.FULL)) {
      for (Bench b : Suite.benches()) {
        assertThat(b.id() + " in " + s.mode(), b.figures(s).isEmpty(), is(false));
      }
    }
    assertThat(new DeepPages().figures(Sizes.FULL).size(), is(10));
    assertThat(new DeepPages().figures(Sizes.FULL).get(9), containsString("page 10000 read capacity"));
    assertThat(new LookupLatency().figures(Sizes.QUICK),
        hasItem("rank lookup p99, Redis ZRANGE on loopback vs one DynamoDB Local Query"));
    assertThat(new Footprint().figures(Sizes.QUICK),
        hasItem("Redis memory per member, demo comments, vs index bytes per entry on disk"));
    assertThat(new Commit().figures(Sizes.FULL), hasItem(
        "commit 1,000 changes into a group of 2,300,000 entries, vs the seeds' author's 1.3 s"));
    assertThat(Suite.pending(), is(List.of()));
  }
}
