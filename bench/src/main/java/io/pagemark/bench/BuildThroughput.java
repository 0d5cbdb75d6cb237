package io.pagemark.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    for (Sizes.Build b : sizes.builds()) {
      SyntheticEntries spec = b.entries();
      Path dir = context.dir("build-" + b.runner().name().toLowerCase() + "-" + spec.entries());
      context.progress().printf("bench: building %,d synthetic entries on %s (its fixed cost) ...%n", FIXED_ENTRIES,
          b.runner().label());
      SyntheticEntries small = new SyntheticEntries(FIXED_ENTRIES, 10, FIXED_ENTRIES / 5);
      double fixedSeconds = Double.parseDouble(BuildJob.runChild(small, sizes.maxPartEntries(), b.runner(), "4g",
          dir.resolve("fixed-index"), dir.resolve("fixed-build.log"), context.progress()).get("seconds"));
      context.progress().printf("bench: building %,d synthetic entries over %,d groups (one of %,d) on %s ...%n",
          spec.entries(), spec.groups(), spec.hotEntries(), b.runner().label());
      Map<String, String> r = BuildJob.runChild(spec, sizes.maxPartEntries(), b.runner(), "4g",
          dir.resolve("index"), dir.resolve("build.log"), context.progress());
      double seconds = Double.parseDouble(r.get("seconds"));
      context.progress().printf("bench: sorting the same %,d entries as text with GNU sort ...%n", spec.entries());
      double sortSeconds = SortBaseline.seconds(spec, dir);
      context.report(new Figure(name(b), spec.entries() / seconds, "entries/s",
          "LC_ALL=C GNU sort of the same entries as text, written out", spec.entries() / sortSeconds, "entries/s",
          String.format("%,d entries over %,d groups (one of %,d), parts of %,d; build %.1f s (pipeline run to"
              + " published build, JVM start excluded), sort %.1f s", spec.entries(), spec.groups(),
              spec.hotEntries(), sizes.maxPartEntries(), seconds, sortSeconds)));
      double beyond = Math.max(seconds - fixedSeconds, 1e-3);
      context.report(new Figure(marginalName(b), (spec.entries() - FIXED_ENTRIES) / beyond, "entries/s",
          "LC_ALL=C GNU sort of the same entries as text, written out", spec.entries() / sortSeconds, "entries/s",
          String.format("build %.1f s minus %.1f s for %,d entries over 10 groups (start-up, translation, publishing:"
              + " fixed per build), sort %.1f s; %.2f us per entry beyond the fixed cost, sort %.2f us", seconds,
              fixedSeconds, FIXED_ENTRIES, sortSeconds, beyond * 1e6 / (spec.entries() - FIXED_ENTRIES),
              sortSeconds * 1e6 / spec.entries())));
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
                manySeconds, seconds,
                spec.groups(), manySortSeconds)));
      }
    }
  }
}
