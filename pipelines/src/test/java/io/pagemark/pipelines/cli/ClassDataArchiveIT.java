package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-data archive of local Flink's batch commands, in the steps bin/pagemark takes, each in a JVM of its own
 * with the pipelines jar: a training build lists its classes, {@code -Xshare:dump} writes the first layer from the
 * list (without its lambda lines), a training build with {@code -XX:ArchiveClassesAtExit} writes the second layer on
 * top of it, and a build that maps both finds Flink's RPC system (its own class loader, which the first layer cannot
 * hold on Java 17) in the second.
 */
class ClassDataArchiveIT {
  static final Path REPO = Path.of(System.getProperty("pagemark.repo", "..")).toAbsolutePath().normalize();
  static final List<String> FLINK = List.of("--runner=FlinkRunner", "--flinkMaster=[local]", "--parallelism=2");
  static final String RPC_SYSTEM = "org.apache.flink.runtime.rpc.pekko.PekkoRpcSystem";
  static String classpath;

  @BeforeAll
  static void jars() throws IOException {
    Path target = REPO.resolve("pipelines/target");
    Path jar;
    try (Stream<Path> s = Files.list(target)) {
      jar = s.filter(p -> p.getFileName().toString().matches("pagemark-pipelines-.*\\.jar")
          && !p.getFileName().toString().matches(".*-(sources|javadoc)\\.jar")).findFirst().orElseThrow();
    }
    classpath = jar + ":" + Files.readString(target.resolve("runtime-classpath.txt")).trim();
  }

  @Test
  void theSecondLayerHoldsFlinksRpcSystem(@TempDir Path dir) throws Exception {
    Path list = dir.resolve("classes.list");
    run(dir, "list", train(List.of("-XX:DumpLoadedClassList=" + list)));
    Path classes = dir.resolve("classes.nolambda");
    try (Stream<String> lines = Files.lines(list)) {
      Files.write(classes, (Iterable<String>) lines.filter(l -> !l.startsWith("@lambda"))::iterator);
    }
    Path base = dir.resolve("base.jsa");
    run(dir, "dump", List.of(java(), "-Xshare:dump", "-XX:SharedClassListFile=" + classes,
        "-XX:SharedArchiveFile=" + base, "-cp", classpath));
    Path top = dir.resolve("base.top.jsa");
    run(dir, "top", train(List.of("-XX:SharedArchiveFile=" + base, "-XX:ArchiveClassesAtExit=" + top)));
    assertThat(Files.size(top), greaterThan(0L));

    String both = run(dir, "both",
        train(List.of("-XX:SharedArchiveFile=" + base + ":" + top, "-Xlog:class+load=info")));
    assertThat(loadLine(both), containsString("source: shared objects file (top)"));
    assertThat(count(both, "source: shared objects file (top)"), greaterThan(1_000L));
  }

  /** A training build on local Flink with the flags bin/pagemark gives a Flink batch command, plus these. */
  private static List<String> train(List<String> flags) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx1g"));
    cmd.addAll(BuildJvmOptionsTest.launcherFlags()); // read by bin/pagemark's own options_file
    cmd.addAll(flags);
    cmd.addAll(List.of("--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-cp", classpath, ClassDataTraining.class.getName()));
    cmd.addAll(FLINK);
    return cmd;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /** Runs a command to its end (exit code 0 or the test fails with its output) and returns its output. */
  private static String run(Path dir, String name, List<String> cmd) throws Exception {
    Path out = dir.resolve(name + ".log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    boolean ended = p.waitFor(5, TimeUnit.MINUTES);
    if (!ended) {
      p.destroyForcibly().waitFor();
    }
    String output = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(name + " did not end in 5 minutes:\n" + tail(output), ended, is(true));
    assertThat(name + " failed:\n" + tail(output), p.exitValue(), is(0));
    return output;
  }

  private static String loadLine(String log) {
    return log.lines().filter(l -> l.contains(" " + RPC_SYSTEM + " ")).findFirst()
        .orElseThrow(() -> new AssertionError(RPC_SYSTEM + " was not loaded:\n" + tail(log)));
  }

  private static long count(String log, String s) {
    return log.lines().filter(l -> l.contains(s)).count();
  }

  private static String tail(String s) {
    return s.length() <= 4000 ? s : s.substring(s.length() - 4000);
  }
}
