package io.pagemark.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a main class of this suite in a JVM of its own (same classpath, Flink's Java 17 flags, a given heap) and
 * returns the fields of its {@code RESULT k=v ...} line. Its other output goes to a log file; a failure names it.
 */
final class ChildJvm {
  /** The JVM flags Flink's runner needs on Java 17 (see ENVIRONMENT.md); harmless for the DirectRunner. */
  static final List<String> OPENS = List.of(
      "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED");

  private ChildJvm() {}

  /** Where the suite keeps its class-data archives ({@link ClassData}): beside bin/pagemark's, in the checkout. */
  static final Path CLASS_DATA = Path.of(".pagemark", "cds");

  /**
   * Runs {@code main} with {@code args} in a child JVM of {@code heap}, with bin/pagemark's batch flags and the
   * runner's class-data archive (written first if missing), and returns the fields of its RESULT line.
   */
  static Map<String, String> run(String heap, Class<?> main, List<String> args, Path log, PrintStream progress)
      throws IOException, InterruptedException {
    return run(heap, main, args, ClassData.flags(CLASS_DATA, onFlink(args), args, progress), log, progress);
  }

  /** {@link #run}, with these extra JVM flags instead of a class-data archive's. */
  static Map<String, String> run(String heap, Class<?> main, List<String> args, List<String> jvmFlags, Path log,
      PrintStream progress) throws IOException, InterruptedException {
    List<String> flags = new ArrayList<>();
    flags.add("-Xmx" + heap);
    flags.addAll(jvmFlags);
    List<String> cmd = command(flags, main.getName(), args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    Map<String, String> result = null;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        PrintStream logOut = new PrintStream(log.toFile(), StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) {
        logOut.println(line);
        if (line.startsWith("RESULT ")) {
          result = fields(line.substring("RESULT ".length()));
        } else if (line.startsWith("progress:")) {
          progress.println("  " + line);
        }
      }
    }
    int code = p.waitFor();
    if (code != 0 || result == null) {
      throw new IllegalStateException(main.getSimpleName() + " " + String.join(" ", args) + " exited with code "
          + code + (result == null ? " and no RESULT line" : "") + "; its output is in " + log);
    }
    return result;
  }

  /**
   * The command line of a child JVM on this suite's classpath: {@code java}, bin/pagemark's batch flags for these
   * arguments' runner, {@code flags}, Flink's opens, then {@code main} and {@code args}.
   */
  static List<String> command(List<String> flags, String main, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(buildFlags(Path.of(""), args));
    cmd.addAll(flags);
    cmd.addAll(OPENS);
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main);
    cmd.addAll(args);
    return cmd;
  }

  /**
   * The JVM flags {@code bin/pagemark} gives a batch command with these arguments (from {@code
   * pipelines/build-jvm.options} under {@code repo}, and {@code pipelines/direct-jvm.options} unless an argument names
   * the Flink runner): every child of this suite is a build, timed as a user runs it.
   */
  static List<String> buildFlags(Path repo, List<String> args) throws IOException {
    List<String> flags = optionsFile(repo.resolve("pipelines").resolve("build-jvm.options"));
    if (!onFlink(args)) {
      flags.addAll(optionsFile(repo.resolve("pipelines").resolve("direct-jvm.options")));
    }
    return flags;
  }

  /** Whether these arguments name the Flink runner, as bin/pagemark reads them. */
  static boolean onFlink(List<String> args) {
    return args.stream().anyMatch(a -> a.matches("(?i)--runner=(flink|flinkrunner)"));
  }

  /**
   * The flags of a JVM options file as bin/pagemark reads it: one a line, skipping blank lines and {@code #}, with
   * {@code {dir}} standing for the file's folder.
   */
  static List<String> optionsFile(Path file) throws IOException {
    String dir = file.toAbsolutePath().normalize().getParent().toString();
    List<String> flags = new ArrayList<>();
    for (String line : java.nio.file.Files.readAllLines(file)) {
      String flag = line.trim();
      if (!flag.isEmpty() && !flag.startsWith("#")) {
        flags.add(flag.replace("{dir}", dir));
      }
    }
    return flags;
  }

  static Map<String, String> fields(String s) {
    Map<String, String> m = new HashMap<>();
    for (String kv : s.trim().split("\\s+")) {
      int eq = kv.indexOf('=');
      if (eq > 0) {
        m.put(kv.substring(0, eq), kv.substring(eq + 1));
      }
    }
    return m;
  }
}
