package io.pagemark.testing.flink;

import io.pagemark.testing.LocalProcess;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * How a JVM of a {@link FlinkCluster} is started, the way Flink's own scripts start it: Flink's jars on the
 * classpath, the memory flags and dynamic properties that Flink's calculator derives from the configuration, Flink's
 * Java 17 flags, and a log file per process. Its output goes to the process's {@code .out} file.
 */
public final class FlinkJvm {
  /** System property (or environment variable PAGEMARK_FLINK_HOME) naming the folder with Flink's lib/. */
  public static final String HOME_PROPERTY = "pagemark.flinkCluster.home";
  /** Flink's list of JVM flags for Java 17 ({@code env.java.opts.all} in flink-dist's config.yaml). */
  public static final List<String> JAVA_17_FLAGS =
      List.of(
          "--add-exports=java.base/sun.net.util=ALL-UNNAMED", "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
          "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
          "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.text=ALL-UNNAMED", "--add-opens=java.base/java.time=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");
  static final String JOB_MANAGER_MAIN = "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint";
  static final String TASK_MANAGER_MAIN = "org.apache.flink.runtime.taskexecutor.TaskManagerRunner";

  private FlinkJvm() {}

  /** Starts {@code mainClass} on Flink's jars with this cluster's configuration; logs as {@code log/<name>.log}. */
  static Process launch(Path lib, FlinkClusterFiles files, String name, List<String> resourceParams,
      String mainClass) throws IOException {
    List<String> jvm = new ArrayList<>();
    List<String> dynamic = new ArrayList<>();
    split(resourceParams, jvm, dynamic);
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBinary());
    cmd.addAll(jvm);
    cmd.addAll(JAVA_17_FLAGS);
    cmd.add("-Dlog.file=" + files.logDir().resolve(name + ".log"));
    cmd.add("-Dlog4j.configurationFile=" + files.log4jConfig().toUri());
    cmd.add("-cp");
    cmd.add(lib + File.separator + "*");
    cmd.add(mainClass);
    cmd.add("--configDir");
    cmd.add(files.confDir().toString());
    cmd.addAll(dynamic);
    return new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(files.logDir().resolve(name + ".out").toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .start();
  }

  /**
   * Runs Flink's own memory calculator on the configuration: its two result lines are the JVM's memory flags and the
   * dynamic properties the process needs (a TaskManager without them exits: "'taskmanager.cpu.cores' is not set").
   */
  static List<String> resourceParams(Path lib, FlinkClusterFiles files, String command) throws IOException {
    List<String> cmd = List.of(javaBinary(), "-cp", lib + File.separator + "*",
        "org.apache.flink.runtime.util.bash.BashJavaUtils", command, "--configDir", files.confDir().toString());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      p.waitFor(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while computing Flink's memory settings", e);
    }
    String prefix = "BASH_JAVA_UTILS_EXEC_RESULT:";
    List<String> results = output.lines().filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()).trim()).collect(Collectors.toList());
    if (p.exitValue() != 0 || results.size() != 2) {
      throw new IOException("Flink's memory calculator (" + command + ") failed on " + files.confDir() + ":\n"
          + output.strip());
    }
    return results;
  }

  /** Splits the calculator's two lines into JVM flags and {@code -D key=value} arguments. */
  static void split(List<String> resourceParams, List<String> jvm, List<String> dynamic) {
    jvm.addAll(Arrays.asList(resourceParams.get(0).split("\\s+")));
    if (!resourceParams.get(1).isBlank()) {
      dynamic.addAll(Arrays.asList(resourceParams.get(1).split("\\s+")));
    }
  }

  public static Path lib() throws IOException {
    String h = System.getProperty(HOME_PROPERTY, System.getenv("PAGEMARK_FLINK_HOME"));
    Path home = h != null ? Path.of(h) : LocalProcess.repoRoot().resolve("testing").resolve("flink-cluster")
        .resolve("target");
    Path lib = home.resolve("lib").toAbsolutePath().normalize();
    try (var s = Files.list(lib)) {
      if (s.noneMatch(p -> p.getFileName().toString().startsWith("flink-runtime-"))) {
        throw new IOException("no flink-runtime jar");
      }
    } catch (IOException e) {
      throw new IOException("Flink's jars are not built at " + lib + " (run: mvn -B -pl testing/flink-cluster"
          + " package)", e);
    }
    return lib;
  }

  static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

}
