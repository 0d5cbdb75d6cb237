package io.pagemark.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Figure 3, build throughput: entries per second to group, order and write synthetic entries into a published index
 * ({@code BuildIndex} fed by a {@link SyntheticSource}, no DynamoDB, equal sort keys left unresolved), each runner in a
 * JVM of its own, against GNU {@code sort} of the same entries as text plus writing them out (see {@link
 * SortBaseline}), measured right after on the same machine. Each runner also builds {@value #FIXED_ENTRIES} entries
 * first, which takes its fixed cost (Flink's local cluster, translating the pipeline, publishing): the second figure
 * of each runner is the throughput of the entries beyond those, against the same {@code sort}, so that a reader sees
 * how much of the gap is per entry and how much is per build. The DirectRunner also builds the same number of entries
 * over a group per {@value #ENTRIES_PER_SMALL_GROUP} entries (the hot group kept), against {@code sort} of those: a
 * runner that pays per group shows it there.
 */
final class BuildThroughput implements Bench {
  /** Entries of the build that measures a runner's fixed cost. */
  static final int FIXED_ENTRIES = 1_000;

  /** Entries per group of the DirectRunner's build of many groups. */
  static final int ENTRIES_PER_SMALL_GROUP = 10;

  static String name(Sizes.Build b) {
    return String.format("build throughput, %s, %,d entries, vs GNU sort", b.runner().label(),
        b.entries().entries());
  }

  static String marginalName(Sizes.Build b) {
    return String.format("build throughput past a %,d-entry build's time, %s, %,d entries, vs GNU sort",
        FIXED_ENTRIES, b.runner().label(), b.entries().entries());
  }

  /** The DirectRunner's build of many small groups beside its hot group, or null for another runner. */
  static SyntheticEntries manyGroups(Sizes.Build b) {
    if (b.runner() != Sizes.Runner.DIRECT) {
      return null;
    }
    SyntheticEntries e = b.entries();
    return new SyntheticEntries(e.entries(), (int) (e.entries() / ENTRIES_PER_SMALL_GROUP), e.hotEntries());
  }

  static String manyGroupsName(Sizes.Build b, SyntheticEntries many) {
    return String.format("build throughput, %s, %,d entries over %,d groups, vs GNU sort", b.runner().label(),
        many.entries(), many.groups());
  }

  @Override
  public String id() {
    return "build-throughput";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    List<String> names = new ArrayList<>();
    for (Sizes.Build b : sizes.builds()) {
      names.add(name(b));
      names.add(marginalName(b));
      if (manyGroups(b) != null) {
        names.add(manyGroupsName(b, manyGroups(b)));
      }
    }
    return names;
  }

  /**
   * One round of a runner's builds: its fixed-cost build, its build, and {@code sort} of the same entries; with the CPU
   * seconds the build and {@code sort} took (NaN where not measured).
   */
  record Round(double fixedSeconds, double seconds, double sortSeconds, double cpuSeconds, double sortCpuSeconds) {
    Round(double fixedSeconds, double seconds, double sortSeconds) {
      this(fixedSeconds, seconds, sortSeconds, Double.NaN, Double.NaN);
    }

    /** The build's throughput as a fraction of {@code sort}'s. */
    double ratio() {
      return sortSeconds / seconds;
    }

    /** The throughput of the entries beyond the fixed-cost build's, as a fraction of {@code sort}'s. */
    double marginalRatio() {
      return sortSeconds / beyond();
    }

    double beyond() {
      return Math.max(seconds - fixedSeconds, 1e-3);
    }
  }

  /** The round whose {@code ratio} is the median of an odd number of rounds. */
  static Round median(List<Round> rounds, ToDoubleFunction<Round> ratio) {
    if (rounds.size() % 2 == 0) {
      throw new IllegalArgumentException("need an odd number of rounds, not " + rounds.size());
    }
    List<Round> sorted = new ArrayList<>(rounds);
    sorted.sort(Comparator.comparingDouble(ratio));
    return sorted.get(rounds.size() / 2);
  }

  /**
   * The CPU a round's build and {@code sort} took, for a figure's note (what each costs on a machine whose other
   * tenants want the cores too: the wall-clock ratio of a build that keeps both cores busy falls further than
   * {@code sort}'s when they do), or "" if not measured.
   */
  static String cpuNote(Round r) {
    if (Double.isNaN(r.cpuSeconds()) || Double.isNaN(r.sortCpuSeconds())) {
      return "";
    }
    String note = String.format("; CPU of that round: build %.2f s (%.2f cores on average), sort %.2f s (%.2f cores)",
        r.cpuSeconds(), r.cpuSeconds() / r.seconds(), r.sortCpuSeconds(), r.sortCpuSeconds() / r.sortSeconds());
    // bash's times counts in milliseconds: a small sort may take none
    return r.sortCpuSeconds() > 0 ? note + String.format(", %.2fx sort's", r.cpuSeconds() / r.sortCpuSeconds()) : note;
  }

  /** How the rounds went, for a figure's note: each round's ratio in the order they ran, or "" for one round. */
  static String roundsNote(List<Round> rounds, ToDoubleFunction<Round> ratio) {
    if (rounds.size() == 1) {
      return "";
    }
    StringBuilder s = new StringBuilder(String.format("; the median of %d rounds in turns:", rounds.size()));
    for (int i = 0; i < rounds.size(); i++) {
      Round r = rounds.get(i);
      s.append(i == 0 ? " " : ", ").append(String.format("%.3gx (build %.1f s, sort %.2f s)",
          ratio.applyAsDouble(r), r.seconds(), r.sortSeconds()));
    }
    return s.toString();
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    for (Sizes.Build b : sizes.builds()) {
      SyntheticEntries spec = b.entries();
      Path dir = context.dir("build-" + b.runner().name().toLowerCase() + "-" + spec.entries());
      SyntheticEntries small = new SyntheticEntries(FIXED_ENTRIES, 10, FIXED_ENTRIES / 5);
      List<Round> rounds = new ArrayList<>();
      Path input = SortBaseline.input(spec, dir);
      try {
        for (int round = 1; round <= b.rounds(); round++) {
          String of = b.rounds() == 1 ? "" : String.format(" (round %d of %d)", round, b.rounds());
          String at = b.rounds() == 1 ? "" : "-" + round;
          context.progress().printf("bench: building %,d synthetic entries on %s (its fixed cost)%s ...%n",
              FIXED_ENTRIES, b.runner().label(), of);
          double fixedSeconds = Double.parseDouble(BuildJob.runChild(small, sizes.maxPartEntries(), b.runner(), "4g",
              dir.resolve("fixed-index" + at), dir.resolve("fixed-build" + at + ".log"), context.progress())
              .get("seconds"));
          context.progress().printf("bench: building %,d synthetic entries over %,d groups (one of %,d) on %s%s ...%n",
              spec.entries(), spec.groups(), spec.hotEntries(), b.runner().label(), of);
          Path index = dir.resolve("index" + at);
          Map<String, String> built = BuildJob.runChild(spec, sizes.maxPartEntries(), b.runner(), "4g",
              index, dir.resolve("build" + at + ".log"), context.progress());
          // Each round's index stays until the suite's next run has measured: creating files right after many were
          // deleted is slow on this machine's file system (see Suite.run).
          context.progress().printf("bench: sorting the same %,d entries as text with GNU sort%s ...%n",
              spec.entries(), of);
          SortBaseline.Sorted sorted = SortBaseline.measure(input, spec.entries(), dir);
          rounds.add(new Round(fixedSeconds, Double.parseDouble(built.get("seconds")), sorted.seconds(),
              Double.parseDouble(built.get("cpuSeconds")), sorted.cpuSeconds()));
        }
      } finally {
        Files.deleteIfExists(input);
      }
      Round r = median(rounds, Round::ratio);
      context.report(new Figure(name(b), spec.entries() / r.seconds(), "entries/s",
          "LC_ALL=C GNU sort of the same entries as text, written out", spec.entries() / r.sortSeconds(), "entries/s",
          String.format("%,d entries over %,d groups (one of %,d), parts of %,d; build %.1f s (pipeline run to"
              + " published build, JVM start excluded), sort %.1f s%s%s", spec.entries(), spec.groups(),
              spec.hotEntries(), sizes.maxPartEntries(), r.seconds(), r.sortSeconds(), cpuNote(r),
              roundsNote(rounds, Round::ratio))));
      Round m = median(rounds, Round::marginalRatio);
      context.report(new Figure(marginalName(b), (spec.entries() - FIXED_ENTRIES) / m.beyond(), "entries/s",
          "LC_ALL=C GNU sort of the same entries as text, written out", spec.entries() / m.sortSeconds(), "entries/s",
          String.format("build %.1f s minus %.1f s for %,d entries over 10 groups (start-up, translation, publishing:"
              + " fixed per build), sort %.1f s; %.2f us per entry beyond the fixed cost, sort %.2f us%s",
              m.seconds(), m.fixedSeconds(), FIXED_ENTRIES, m.sortSeconds(),
              m.beyond() * 1e6 / (spec.entries() - FIXED_ENTRIES), m.sortSeconds() * 1e6 / spec.entries(),
              roundsNote(rounds, Round::marginalRatio))));
      SyntheticEntries many = manyGroups(b);
      if (many != null) {
        context.progress().printf("bench: building %,d synthetic entries over %,d groups (one of %,d) on %s ...%n",
            many.entries(), many.groups(), many.hotEntries(), b.runner().label());
        double manySeconds = Double.parseDouble(BuildJob.runChild(many, sizes.maxPartEntries(), b.runner(), "4g",
            dir.resolve("many-groups-index"), dir.resolve("many-groups-build.log"), context.progress())
            .get("seconds"));
        double manySortSeconds = SortBaseline.seconds(many, dir);
        context.report(new Figure(manyGroupsName(b, many), many.entries() / manySeconds, "entries/s",
            "LC_ALL=C GNU sort of the same entries as text, written out", many.entries() / manySortSeconds,
            "entries/s", String.format("%,d entries over %,d groups (one of %,d, the others of %d on average), parts of"
                + " %,d; build %.1f s (%.1f s with %,d groups), sort %.1f s", many.entries(), many.groups(),
                many.hotEntries(), (many.entries() - many.hotEntries()) / (many.groups() - 1), sizes.maxPartEntries(),
                manySeconds, r.seconds(), spec.groups(), manySortSeconds)));
      }
    }
  }
}
