package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.pipelines.cli.LocalFlink;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.sink.file.WriteIndexFiles;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * One index build of synthetic entries, in a JVM of its own: {@code BuildJob ENTRIES GROUPS HOT_ENTRIES
 * MAX_PART_ENTRIES OUTPUT [beam options...]}. Feeds {@link BuildIndex} from a {@link SyntheticSource}, waits for the
 * build to be published, checks its entry count, and prints one line {@code RESULT seconds=... entries=...
 * peakHeapAfterGcBytes=... peakHeapPoolsBytes=... vmHwmKb=... fileBytes=...} for the suite to read. Exit code 1 if
 * the build fails.
 */
public final class BuildJob {
  private BuildJob() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: BuildJob ENTRIES GROUPS HOT_ENTRIES MAX_PART_ENTRIES OUTPUT [beam options...]");
      System.exit(2);
    }
    SyntheticEntries spec =
        new SyntheticEntries(Long.parseLong(args[0]), Integer.parseInt(args[1]), Long.parseLong(args[2]));
    long maxPart = Long.parseLong(args[3]);
    Path output = Path.of(args[4]);
    String[] beamArgs = java.util.Arrays.copyOfRange(args, 5, args.length);
    PipelineOptions options = PipelineOptionsFactory.fromArgs(beamArgs).withValidation().create();
    LocalFlink.configure(options); // as pagemark's commands run Flink's local cluster
    HeapWatch.start();

    BuildIndex build = BuildIndex.of(SyntheticEntries.schema()).withSink(WriteIndexFiles.to(output.toString()))
        .withMaxPartEntries(maxPart).withKeepBuilds(1);
    Pipeline p = Pipeline.create(options);
    p.apply("Synthetic table", new SyntheticSource(spec)).apply("Build index", build.fromBatches());

    long started = System.nanoTime();
    long cpuStarted = processCpuNanos();
    PipelineResult.State state = p.run().waitUntilFinish();
    double seconds = (System.nanoTime() - started) / 1e9;
    double cpuSeconds = (processCpuNanos() - cpuStarted) / 1e9;
    if (state != PipelineResult.State.DONE) {
      System.err.println("BuildJob: pipeline ended in state " + state);
      System.exit(1);
    }
    Path buildDir = new IndexLayout(output).build(build.buildId());
    BuildInfo info = BuildInfo.read(buildDir.resolve(IndexLayout.BUILD_INFO));
    if (info.counts().entries() != spec.entries() || info.counts().groups() != spec.groups()) {
      System.err.printf("BuildJob: the build holds %,d entries in %,d groups, expected %,d in %,d%n",
          info.counts().entries(), info.counts().groups(), spec.entries(), spec.groups());
      System.exit(1);
    }
    String disorder = checkOrder(buildDir);
    if (disorder != null) {
      System.err.println("BuildJob: " + disorder);
      System.exit(1);
    }
    System.out.printf(java.util.Locale.ROOT, "RESULT seconds=%.3f cpuSeconds=%.3f entries=%d groups=%d"
        + " peakHeapAfterGcBytes=%d peakHeapPoolsBytes=%d vmHwmKb=%d fileBytes=%d%n", seconds, cpuSeconds,
        info.counts().entries(), info.counts().groups(), HeapWatch.peakAfterGc(), peakHeapBytes(),
        ProcStatus.self("VmHWM"), groupFileBytes(buildDir));
    System.exit(0); // Flink's local cluster may leave non-daemon threads behind
  }

  /** CPU time this JVM has used, all its threads, user and system. */
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * Reads every group file sequentially and checks that its pages are right: records in DynamoDB's ascending order
   * of sort keys, each run of equal sort keys with consistent positions, as many records as the header says. Returns
   * what is wrong, or null.
   */
  static String checkOrder(Path buildDir) throws java.io.IOException {
    List<Path> files;
    try (java.util.stream.Stream<Path> s = java.nio.file.Files.walk(buildDir.resolve("groups"))) {
      files = s.filter(f -> f.toString().endsWith(".pmi")).collect(java.util.stream.Collectors.toList());
    }
    for (Path f : files) {
      try (io.pagemark.format.GroupFile g = io.pagemark.format.GroupFile.open(f)) {
        io.pagemark.format.IndexRecord[] previous = {null};
        long[] n = {0};
        String[] problem = {null};
        g.forEachRecord(r -> {
          io.pagemark.format.IndexRecord p = previous[0];
          if (problem[0] == null && p != null) {
            int c = p.sortKey().compareTo(r.sortKey());
            boolean sameRun = c == 0 && r.tiePosition() == p.tiePosition() + 1 && r.runLength() == p.runLength();
            if (c > 0 || (c == 0 && !sameRun) || (c < 0 && r.tiePosition() != 0)) {
              problem[0] = f + ": rank " + n[0] + " is out of order";
            }
          }
          previous[0] = r;
          n[0]++;
        });
        if (problem[0] != null) {
          return problem[0];
        }
        if (n[0] != g.count()) {
          return f + ": " + n[0] + " records read, header says " + g.count();
        }
      }
    }
    return null;
  }

  /** Runs a build in a child JVM with this heap and returns its RESULT fields. */
  static java.util.Map<String, String> runChild(SyntheticEntries spec, long maxPartEntries, Sizes.Runner runner,
      String heap, Path output, Path log, java.io.PrintStream progress) throws Exception {
    List<String> args = new ArrayList<>(List.of(Long.toString(spec.entries()), Integer.toString(spec.groups()),
        Long.toString(spec.hotEntries()), Long.toString(maxPartEntries), output.toString()));
    args.addAll(runner.options());
    return ChildJvm.run(heap, BuildJob.class, args, log, progress);
  }

  /** Sum of the heap pools' peak usage since the JVM started (peaks of different moments: an upper bound). */
  static long peakHeapBytes() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  private static long groupFileBytes(Path buildDir) throws java.io.IOException {
    List<Path> files = new ArrayList<>();
    try (var s = Files.walk(buildDir.resolve("groups"))) {
      s.filter(f -> f.toString().endsWith(".pmi")).forEach(files::add);
    }
    long sum = 0;
    for (Path f : files) {
      sum += Files.size(f);
    }
    return sum;
  }

  /** Makes entry {@code i} of the spec. */
  static final class EntryFn extends DoFn<Long, IndexEntry> {
    private final SyntheticEntries spec;

    EntryFn(SyntheticEntries spec) {
      this.spec = spec;
    }

    @ProcessElement
    public void process(@Element Long i, OutputReceiver<IndexEntry> out) {
      out.output(spec.entry(i));
    }
  }
}
