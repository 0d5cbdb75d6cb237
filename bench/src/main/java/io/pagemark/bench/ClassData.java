package io.pagemark.bench;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Class-data sharing for the suite's builds, as {@code bin/pagemark} gives it to batch commands (docs/build-speed.md,
 * "Fifth round"): a child JVM maps the classes of an archive instead of reading, parsing and verifying them from the
 * jars. One archive per runner ({@code bench-flink}, {@code bench-direct}) and classpath, in {@code .pagemark/cds}:
 * before the first build of a runner, an untimed 1,000-entry {@link BuildJob} lists the classes it loads and a JVM of
 * its own writes the archive from that list (without its lambda lines: Java 17 crashes dumping some of them), so that
 * every timed build of the run maps the same archive, as a user's second batch command does. Then, as bin/pagemark
 * does, a training build writes a second layer on top of it ({@link #writeTop}, "Thirteenth round"), which the
 * builds map too. Nothing happens when the classpath holds a directory (an archive needs jars) or {@code
 * PAGEMARK_CDS=off}; a failed dump leaves a {@code .failed} mark and the builds run without that layer.
 */
final class ClassData {
  private ClassData() {}

  /** The JVM flags that map this runner's archive, writing it first if needed; empty when there is none. */
  static List<String> flags(Path dir, boolean onFlink, List<String> runnerArgs, PrintStream progress)
      throws IOException, InterruptedException {
    List<Path> classpath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
        .map(Path::of).collect(Collectors.toList());
    if ("off".equals(System.getenv("PAGEMARK_CDS")) || !classpath.stream().allMatch(Files::isRegularFile)) {
      return List.of();
    }
    String kind = onFlink ? "bench-flink" : "bench-direct";
    Path archive = dir.resolve(kind + "-" + key(classpath) + ".jsa");
    Path failed = dir.resolve(archive.getFileName() + ".failed");
    if (!Files.isRegularFile(archive) && !Files.exists(failed)) {
      write(archive, failed, kind, runnerArgs, progress);
    }
    if (!Files.isRegularFile(archive)) {
      return List.of();
    }
    Path top = topLayer(archive);
    Path topFailed = top.resolveSibling(top.getFileName() + ".failed");
    if (!Files.isRegularFile(top) && !Files.exists(topFailed)) {
      writeTop(archive, top, topFailed, kind, onFlink, progress);
    }
    return List.of(sharedArchiveFlag(archive, Files.isRegularFile(top) ? top : null));
  }

  /** The second layer of an archive ({@code flink-KEY.top.jsa} beside {@code flink-KEY.jsa}), as bin/pagemark names it. */
  static Path topLayer(Path archive) {
    String name = archive.getFileName().toString();
    return archive.resolveSibling(name.substring(0, name.length() - ".jsa".length()) + ".top.jsa");
  }

  /** The flag that maps an archive, and its second layer on top when there is one. */
  static String sharedArchiveFlag(Path archive, Path top) {
    return "-XX:SharedArchiveFile=" + archive + (top == null ? "" : File.pathSeparator + top);
  }

  /** A name for this JVM and these jars: a hash of their paths, sizes and modification times. */
  static String key(List<Path> classpath) throws IOException {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      List<Path> files = new ArrayList<>();
      files.add(Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so"));
      files.addAll(classpath);
      for (Path f : files) {
        String line = f + " " + (Files.exists(f) ? Files.size(f) + " " + Files.getLastModifiedTime(f).toMillis() : "-");
        sha.update((line + "\n").getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The runner's options of a build's arguments: what the training build runs with. On Flink it always runs in its
   * own JVM ({@code --flinkMaster=[local]}): a session cluster's submission alone takes tens of seconds.
   */
  static List<String> runnerOptions(List<String> args) {
    return args.stream()
        .filter(a -> a.matches("--(runner|flinkMaster|parallelism|enforceImmutability|enforceEncodability)=.*"))
        .map(a -> a.startsWith("--flinkMaster=") ? "--flinkMaster=[local]" : a)
        .collect(Collectors.toList());
  }

  private static void write(Path archive, Path failed, String kind, List<String> runnerArgs, PrintStream progress)
      throws IOException, InterruptedException {
    Files.createDirectories(archive.getParent());
    long started = System.nanoTime();
    Path work = Files.createTempDirectory("pagemark-cds-");
    try {
      Path list = work.resolve("classes.list");
      List<String> args = new ArrayList<>(List.of("1000", "10", "200", "200000", work.resolve("index").toString()));
      args.addAll(runnerOptions(runnerArgs));
      ChildJvm.run("1g", BuildJob.class, args, List.of("-XX:DumpLoadedClassList=" + list), work.resolve("train.log"),
          progress);
      Path classes = work.resolve("classes.nolambda");
      try (Stream<String> lines = Files.lines(list)) {
        Files.write(classes, (Iterable<String>) lines.filter(l -> !l.startsWith("@lambda"))::iterator);
      }
      Path tmp = archive.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
      Path log = archive.resolveSibling("dump-" + kind + ".log");
      Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xshare:dump", "-XX:SharedClassListFile=" + classes, "-XX:SharedArchiveFile=" + tmp,
          "-XX:ErrorFile=" + archive.resolveSibling("dump-" + kind + "-crash.log"),
          "-cp", System.getProperty("java.class.path"))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      if (dump.waitFor() != 0 || !Files.isRegularFile(tmp) || Files.size(tmp) == 0) {
        Files.deleteIfExists(tmp);
        Files.writeString(failed, "see " + log + "\n");
        progress.println("  class-data archive for " + kind + " not written (see " + log + "); builds run without");
        return;
      }
      try (Stream<Path> old = Files.list(archive.getParent())) {
        for (Path p : (Iterable<Path>) old.filter(p -> p.getFileName().toString().startsWith(kind + "-")
            && !p.equals(tmp))::iterator) {
          Files.deleteIfExists(p);
        }
      }
      Files.move(tmp, archive, StandardCopyOption.ATOMIC_MOVE);
      progress.printf(java.util.Locale.ROOT, "  class-data archive for %s written in %.1f s (untimed)%n", kind,
          (System.nanoTime() - started) / 1e9);
    } finally {
      try (Stream<Path> all = Files.walk(work)) {
        all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * Writes the archive's second layer as bin/pagemark does: {@code ClassDataTraining} (pipelines) on the runner, with
   * the first layer mapped and {@code -XX:ArchiveClassesAtExit}, in a JVM of its own with a batch command's flags.
   * It holds what Java 17's class list leaves out (Flink's RPC system, loaded by a class loader of its own; lambdas;
   * proxies). A failure leaves a {@code .failed} mark and the builds map the first layer alone.
   */
  private static void writeTop(Path archive, Path top, Path failed, String kind, boolean onFlink, PrintStream progress)
      throws IOException, InterruptedException {
    long started = System.nanoTime();
    Path tmp = top.resolveSibling(top.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    Path log = archive.resolveSibling("dump-" + kind + "-top.log");
    List<String> runner = onFlink ? List.of("--runner=FlinkRunner", "--flinkMaster=[local]") : List.of();
    List<String> cmd = ChildJvm.command(List.of("-XX:SharedArchiveFile=" + archive, "-XX:ArchiveClassesAtExit=" + tmp,
        "-XX:ErrorFile=" + archive.resolveSibling("dump-" + kind + "-top-crash.log")),
        "io.pagemark.pipelines.cli.ClassDataTraining", runner);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (p.waitFor() != 0 || !Files.isRegularFile(tmp) || Files.size(tmp) == 0) {
      Files.deleteIfExists(tmp);
      Files.writeString(failed, "see " + log + "\n");
      progress.println("  second layer of the class-data archive for " + kind + " not written (see " + log
          + "); builds map the first alone");
      return;
    }
    Files.move(tmp, top, StandardCopyOption.ATOMIC_MOVE);
    progress.printf(java.util.Locale.ROOT, "  second layer of the class-data archive for %s written in %.1f s"
        + " (untimed)%n", kind, (System.nanoTime() - started) / 1e9);
  }
}
