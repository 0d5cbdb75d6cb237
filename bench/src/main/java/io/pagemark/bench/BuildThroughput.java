package io.pagemark.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Figure 3, build throughput: entries per second to group, order and write synthetic entries into a published index
 * ({@code BuildIndex} fed by a {@link SyntheticSource}, no DynamoDB, equal sort keys left unresolved), each runner in a
 * JVM of its own, against GNU {@code sort} of the same entries as text plus writing them out (see {@link
 * SortBaseline}), measured right after on the same machine.
 */
final class BuildThroughput implements Bench {
  static String name(Sizes.Build b) {
    return String.format("build throughput, %s, %,d entries, vs GNU sort", b.runner().label(),
        b.entries().entries());
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
    }
    return names;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    for (Sizes.Build b : sizes.builds()) {
      SyntheticEntries spec = b.entries();
      Path dir = context.dir("build-" + b.runner().name().toLowerCase() + "-" + spec.entries());
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
    }
  }
}
