package io.pagemark.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The benchmark suite, {@code bench/run [--quick] [--only=ID,...] [--results=FILE] [--work=DIR]}: runs every
 * benchmark, prints each figure as {@code name: value unit (baseline: value unit, ratio x)} as soon as it is
 * measured, writes the table to the results file, and exits 1 when a figure that should have been produced is
 * missing or a benchmark failed, 2 for a usage error, 0 otherwise. Figures whose feature is not built yet are listed
 * as pending, with their extension point.
 */
public final class Suite {
  static final String USAGE =
      "usage: bench/run [--quick] [--only=ID[,ID...]] [--results=FILE] [--work=DIR]\n"
          + "       bench/run stream-lag [--rate=50] [--seconds=60] ...   (the stream's lag at a steady write rate)\n"
          + "       bench/run stream-backlog [--records=5000] ...      (the stream catching up a backlog)";

  private Suite() {}

  /** Every benchmark, in the order they run. A new figure's benchmark is added here. */
  static List<Bench> benches() {
    return List.of(new DeepPages(), new LookupLatency(), new S3Lookups(), new Footprint(), new Commit(),
        new BuildThroughput(), new PeakMemory(), new PostgresPages(), new ServePages(), new Resp(),
        new ClusterLookupLatency(), new UnionPagesBench(), new CatchUpReads(), new MarkerCosts(),
        new StreamCheckpointLag(), new FormatVersions(), new BuildScaling(), new BackfillEndToEnd());
  }

  /**
   * Figures the issue asks for whose features are not built yet (none at present). A new one is listed here with
   * its extension point until its benchmark joins {@link #benches()}.
   */
  static List<Pending> pending() {
    return List.of();
  }

  public static void main(String[] argv) {
    System.exit(run(List.of(argv), System.out, System.err));
  }

  static int run(List<String> argv, PrintStream out, PrintStream err) {
    // Benchmarks of the change stream that run on their own, with their own options.
    if (!argv.isEmpty() && argv.get(0).equals("stream-lag")) {
      return StreamLagBenchmark.run(argv.subList(1, argv.size()), out, err);
    }
    if (!argv.isEmpty() && argv.get(0).equals("stream-backlog")) {
      return StreamBacklogBenchmark.run(argv.subList(1, argv.size()), out, err);
    }
    Sizes sizes = Sizes.FULL;
    Set<String> only = null;
    Path results = null;
    Path work = Path.of("bench", "target", "work");
    for (String a : argv) {
      if (a.equals("--quick")) {
        sizes = Sizes.QUICK;
      } else if (a.startsWith("--only=")) {
        only = new LinkedHashSet<>(List.of(a.substring("--only=".length()).split(",")));
      } else if (a.startsWith("--results=")) {
        results = Path.of(a.substring("--results=".length()));
      } else if (a.startsWith("--work=")) {
        work = Path.of(a.substring("--work=".length()));
      } else if (a.equals("--help")) {
        out.println(USAGE);
        out.println("benchmarks: " + String.join(", ", benches().stream().map(Bench::id).toList()));
        return 0;
      } else {
        err.println("bench: unknown option " + a);
        err.println(USAGE);
        return 2;
      }
    }
    if (results == null) {
      results = Path.of("bench", "results", sizes == Sizes.QUICK ? "quick.md" : "latest.md");
    }
    List<Bench> selected = new ArrayList<>();
    for (Bench b : benches()) {
      if (only == null || only.remove(b.id())) {
        selected.add(b);
      }
    }
    if (only != null && !only.isEmpty()) {
      err.println("bench: no benchmark " + String.join(", ", only) + "; there are "
          + String.join(", ", benches().stream().map(Bench::id).toList()));
      return 2;
    }
    Duration wait = settleWait(deletedMarker(work), Instant.now());
    if (!wait.isZero() && sizes == Sizes.FULL) {
      err.printf("bench: waiting %d s before measuring: the last run deleted many files %d s ago, and creating files"
          + " within %d s of that is several times slower here (docs/bench.md)%n", wait.toSeconds(),
          SETTLE.minus(wait).toSeconds(), SETTLE.toSeconds());
      try {
        Thread.sleep(wait.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return 1;
      }
    } else if (!wait.isZero()) {
      err.printf("bench: the last run deleted many files %d s ago: builds that create many files may be slower for"
          + " another %d s (a full run waits; docs/bench.md)%n", SETTLE.minus(wait).toSeconds(), wait.toSeconds());
    }
    return run(selected, sizes, results, work, String.join(" ", argv), out, err);
  }

  /**
   * How long a full run waits to measure after the last run deleted many files (its predecessor's work). ext4 without
   * a journal does not reuse an inode within 60 s of its deletion, or 360 s while the inode's table block is dirty
   * (as creating files nearby makes it), and creating a file passes over every such inode: 10,000 files took 3 to 10
   * times their usual system time when created 5 to 300 s after 70,000 were deleted, and their usual time at 420 s
   * (docs/build-speed.md, "Sixteenth round" and "Twenty-second round").
   */
  static final Duration SETTLE = Duration.ofSeconds(370);
  /** Deleting fewer files than this leaves no marker: the inodes they free are too few to slow anything down. */
  static final long MANY_FILES = 1_000;

  /** Where a run notes that it has deleted many files, and when (the file's time). */
  static Path deletedMarker(Path work) {
    return sibling(work, ".deleted");
  }

  /** What is left of {@link #SETTLE} at {@code now} after the deletion {@code marker} notes (zero without one). */
  static Duration settleWait(Path marker, Instant now) {
    try {
      Duration age = Duration.between(Files.getLastModifiedTime(marker).toInstant(), now);
      return age.isNegative() || age.compareTo(SETTLE) >= 0 ? Duration.ZERO : SETTLE.minus(age);
    } catch (IOException e) {
      return Duration.ZERO; // no marker: no run deleted many files from this work directory
    }
  }

  static int run(List<Bench> benches, Sizes sizes, Path results, Path work, String args, PrintStream out,
      PrintStream err) {
    long started = System.nanoTime();
    List<Figure> figures = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    Set<String> expected = new LinkedHashSet<>();
    List<String> notes;
    // The last run's work is moved aside now and deleted once every figure is measured: on a file system that checks
    // each inode it reuses for a recent deletion (ext4 without a journal, as on the machines these figures come from),
    // creating files right after tens of thousands were deleted took many times the system time, and a build
    // creates one file per group (docs/bench.md).
    Path previous = previousWork(work);
    try {
      deleteTree(previous); // left by a run that stopped before its end
      if (Files.exists(work)) {
        Files.move(work, previous);
      }
      Files.createDirectories(work);
    } catch (IOException e) {
      err.println("bench: cannot prepare the work directory " + work + ": " + e.getMessage());
      return 1;
    }
    String loadAtStart = ResultsTable.loadAverage();
    err.printf("bench: %s mode, %d benchmarks, work directory %s, load average %s%n", sizes.mode(), benches.size(),
        work, loadAtStart);
    try (Context context = new Context(work, err, f -> {
      figures.add(f);
      out.println(f.line());
      out.flush();
    }, sizes)) {
      for (Bench b : benches) {
        expected.addAll(b.figures(sizes));
        long t0 = System.nanoTime();
        err.printf("bench: %s ...%n", b.id());
        try {
          b.run(sizes, context);
          context.note(String.format(Locale.ROOT, "%s took %.0f s (load average %s at its end)", b.id(),
              (System.nanoTime() - t0) / 1e9, ResultsTable.loadAverage()));
        } catch (Exception | Error e) {
          failures.add(b.id() + ": " + e);
          err.printf("bench: %s FAILED after %.0f s: %s%n", b.id(), (System.nanoTime() - t0) / 1e9, e);
          e.printStackTrace(err);
        }
      }
      context.note(String.format(Locale.ROOT, "all benchmarks took %.0f s; load average %s at the start",
          (System.nanoTime() - started) / 1e9, loadAtStart));
      notes = List.copyOf(context.notes());
    }
    try {
      if (deleteTree(previous) >= MANY_FILES) {
        Files.writeString(deletedMarker(work), Instant.now() + "\n", StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      err.println("bench: cannot delete the last run's work directory " + previous + ": " + e.getMessage());
    }
    for (Pending p : pending()) {
      out.println(p.line());
    }
    Set<String> missing = new LinkedHashSet<>(expected);
    figures.forEach(f -> missing.remove(f.name()));
    double seconds = (System.nanoTime() - started) / 1e9;
    try {
      Files.createDirectories(results.toAbsolutePath().getParent());
      Files.writeString(results, ResultsTable.markdown(sizes, args, figures, pending(), missing, failures, notes,
          seconds), StandardCharsets.UTF_8);
    } catch (IOException e) {
      err.println("bench: cannot write " + results + ": " + e.getMessage());
      return 1;
    }
    if (!missing.isEmpty() || !failures.isEmpty()) {
      err.printf("bench: %d of %d figures missing (%s); failed: %s%n", missing.size(), expected.size(),
          String.join("; ", missing), failures.isEmpty() ? "none" : String.join("; ", failures));
      out.printf(Locale.ROOT, "bench: %d figures produced, %d missing, %d benchmarks failed, in %.0f s; table in"
          + " %s%n", figures.size(), missing.size(), failures.size(), seconds, results);
      return 1;
    }
    out.printf(Locale.ROOT, "bench: all %d figures produced%s in %.0f s; table in %s%n", figures.size(),
        pending().isEmpty() ? "" : " (" + pending().size() + " pending features)", seconds, results);
    return 0;
  }

  static String now() {
    return ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ISO_LOCAL_DATE);
  }

  /** Where a run keeps the last run's work directory until its own benchmarks are done. */
  static Path previousWork(Path work) {
    return sibling(work, ".previous");
  }

  /** The path beside the work directory whose name is the work directory's followed by {@code suffix}. */
  private static Path sibling(Path work, String suffix) {
    Path absolute = work.toAbsolutePath().normalize();
    return absolute.resolveSibling(absolute.getFileName() + suffix);
  }

  /** Deletes a tree; returns how many files and directories it deleted. */
  private static long deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    long deleted = 0;
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
        deleted++;
      }
    }
    return deleted;
  }
}
