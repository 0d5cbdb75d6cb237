package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Figure 6, peak memory of building one hot group: a build of a single group of {@link Sizes#peakEntries()}
 * synthetic entries in a child JVM whose heap ({@link Sizes#peakHeap()}) is smaller than the group's entries held at
 * once, so that it only succeeds if the build orders the group in parts ({@code --maxPartEntries}). Its peak RSS
 * ({@code VmHWM} of {@code /proc/self/status}) and its peak heap after a collection ({@link HeapWatch}) are compared
 * with the in-memory size of the group's
 * entries, measured in this JVM on a sample of the same entries and scaled to the group.
 */
final class PeakMemory implements Bench {
  static final String RSS = "build peak RSS, one hot group, vs the group's entries in memory";
  static final String HEAP = "build peak heap after GC, one hot group, vs the group's entries in memory";

  @Override
  public String id() {
    return "peak-memory";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(RSS, HEAP);
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    SyntheticEntries spec = new SyntheticEntries(sizes.peakEntries(), 1, sizes.peakEntries());
    double bytesPerEntry = inMemoryBytesPerEntry(spec, (int) Math.min(spec.entries(), 200_000));
    double groupMb = bytesPerEntry * spec.entries() / 1e6;
    Path dir = context.dir("peak-" + spec.entries());
    context.progress().printf("bench: building one group of %,d entries on %s with -Xmx%s ...%n", spec.entries(),
        sizes.peakRunner().label(), sizes.peakHeap());
    Map<String, String> r = BuildJob.runChild(spec, sizes.maxPartEntries(), sizes.peakRunner(), sizes.peakHeap(),
        dir.resolve("index"), dir.resolve("build.log"), context.progress());
    double rssMb = Long.parseLong(r.get("vmHwmKb")) * 1024 / 1e6;
    double heapMb = Long.parseLong(r.get("peakHeapAfterGcBytes")) / 1e6;
    if (heapMb <= 0) {
      throw new IllegalStateException("the build JVM reported no garbage collection; no heap figure");
    }
    String baseline = "the group's IndexEntry objects held at once";
    String note = String.format("%,d entries in one group on %s, -Xmx%s, parts of %,d; an entry takes %.0f bytes"
        + " of heap (measured on %,d entries); build took %.0f s", spec.entries(), sizes.peakRunner().label(),
        sizes.peakHeap(), sizes.maxPartEntries(), bytesPerEntry, Math.min(spec.entries(), 200_000),
        Double.parseDouble(r.get("seconds")));
    context.report(new Figure(RSS, rssMb, "MB", baseline, groupMb, "MB", note + "; RSS is VmHWM, the whole JVM"));
    context.report(new Figure(HEAP, heapMb, "MB", baseline, groupMb, "MB",
        note + "; the most heap in use right after a garbage collection, an upper bound of the live data (a young"
            + " collection leaves old garbage in place); it cannot exceed -Xmx"));
  }

  /** Heap bytes per entry: the growth of the used heap (after full GCs) when {@code n} entries are held. */
  static double inMemoryBytesPerEntry(SyntheticEntries spec, int n) {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long before = usedAfterGc(memory);
    List<IndexEntry> held = new ArrayList<>(n);
    long listBytes = 16 + 4L * n; // the ArrayList's array of compressed references (part of holding, not of an entry)
    for (int i = 0; i < n; i++) {
      held.add(spec.entry(i));
    }
    long after = usedAfterGc(memory);
    if (held.size() != n) {
      throw new AssertionError();
    }
    return Math.max(1, after - before - listBytes) / (double) n;
  }

  private static long usedAfterGc(MemoryMXBean memory) {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
