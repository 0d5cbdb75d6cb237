package io.pagemark.testing.flink;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The files of a {@link FlinkCluster} state folder: {@code conf/config.yaml} and {@code conf/log4j.properties},
 * {@code log/} (one {@code .log} and one {@code .out} per process) and {@code tmp/} (Flink's I/O, blob and web
 * upload directories). Written afresh by every start.
 */
final class FlinkClusterFiles {
  private static final String HOST = "127.0.0.1";
  /** The file that marks a folder as a cluster's, so that a start may clear its subfolders. */
  static final String MARKER = ".pagemark-flink-cluster";
  private static final String HEADER = "# Written by pagemark flink-cluster start; rewritten by every start.";
  private static final String LOG4J =
      String.join(
          "\n",
          "rootLogger.level = INFO",
          "rootLogger.appenderRef.file.ref = File",
          "appender.file.name = File",
          "appender.file.type = File",
          "appender.file.fileName = ${sys:log.file}",
          "appender.file.append = false",
          "appender.file.layout.type = PatternLayout",
          "appender.file.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %c{1} - %m%n",
          "");

  private final Path dir;
  private final String restAddress;

  private FlinkClusterFiles(Path dir, String restAddress) {
    this.dir = dir;
    this.restAddress = restAddress;
  }

  /** The files of a cluster already written to {@code dir}, whose REST endpoint is {@code restAddress}. */
  static FlinkClusterFiles existing(Path dir, String restAddress) {
    return new FlinkClusterFiles(dir, restAddress);
  }

  /**
   * Writes the configuration of a cluster with the given ports, after clearing the folder's old conf, logs and tmp.
   * Refuses a folder that holds anything else and was not made by a start before, so that a mistyped {@code --dir}
   * never loses files.
   */
  static FlinkClusterFiles write(Path dir, FlinkCluster.Spec spec, int restPort, int rpcPort) throws IOException {
    Path marker = dir.resolve(MARKER);
    if (Files.isDirectory(dir) && !Files.exists(marker) && !writtenByUs(dir.resolve("conf").resolve("config.yaml"))) {
      try (Stream<Path> s = Files.list(dir)) {
        if (s.findAny().isPresent()) {
          throw new IOException(dir + " is not empty and was not made by pagemark flink-cluster; give --dir an empty"
              + " or new folder");
        }
      }
    }
    Files.createDirectories(dir);
    Files.writeString(marker, "A Flink session cluster's folder, written by pagemark flink-cluster start.\n",
        StandardCharsets.UTF_8);
    for (String sub : List.of("conf", "log", "tmp")) {
      deleteTree(dir.resolve(sub));
      Files.createDirectories(dir.resolve(sub));
    }
    FlinkClusterFiles f = new FlinkClusterFiles(dir, HOST + ":" + restPort);
    Files.writeString(f.confDir().resolve("config.yaml"), config(spec, restPort, rpcPort, dir.resolve("tmp")),
        StandardCharsets.UTF_8);
    Files.writeString(f.log4jConfig(), LOG4J, StandardCharsets.UTF_8);
    return f;
  }

  /** Flat keys, as Flink 1.19's config.yaml accepts them. */
  static String config(FlinkCluster.Spec spec, int restPort, int rpcPort, Path tmp) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("jobmanager.rpc.address", HOST);
    c.put("jobmanager.rpc.port", Integer.toString(rpcPort));
    c.put("jobmanager.bind-host", HOST);
    c.put("taskmanager.bind-host", HOST);
    c.put("taskmanager.host", HOST);
    c.put("rest.address", HOST);
    c.put("rest.bind-address", HOST);
    c.put("rest.port", Integer.toString(restPort));
    c.put("taskmanager.numberOfTaskSlots", Integer.toString(spec.slotsPerTaskManager()));
    c.put("jobmanager.memory.process.size", spec.jobManagerMemory());
    c.put("taskmanager.memory.process.size", spec.taskManagerMemory());
    // Little managed memory (Beam's batch jobs hardly use it) leaves the heap to the pipeline; fixed network memory
    // keeps enough buffers for parallelism 4 in a small TaskManager.
    c.put("taskmanager.memory.managed.fraction", "0.1");
    c.put("taskmanager.memory.network.min", "128m");
    c.put("taskmanager.memory.network.max", "128m");
    // Each blocking result partition (a batch build has several, deployed together) reserves this many of the 4,096
    // buffers for its sort-shuffle; Flink's default, 512, left a 2-slot TaskManager short at parallelism 2.
    c.put("taskmanager.network.sort-shuffle.min-buffers", "128");
    // Beam's runner turns this check off for its local cluster too: its static caches outlive a job's class loader.
    c.put("classloader.check-leaked-classloader", "false");
    // A streaming job's counters reach clients (pagemark stream's progress) through the REST API's metric fetcher.
    c.put("metrics.fetcher.update-interval", "2000");
    // A TaskManager that dies is noticed after two failed heartbeat calls (connection refused), not after the
    // 50 s timeout: frequent heartbeats let a job with checkpoints restart within seconds of losing one.
    c.put("heartbeat.interval", "2000");
    c.put("io.tmp.dirs", tmp.toString());
    c.put("blob.storage.directory", tmp.resolve("blob").toString());
    c.put("web.tmpdir", tmp.resolve("web").toString());
    c.put("web.upload.dir", tmp.resolve("upload").toString());
    StringBuilder b = new StringBuilder(HEADER + "\n");
    c.forEach((k, v) -> b.append(k).append(": ").append(v).append('\n'));
    return b.toString();
  }

  /** A configuration that a start wrote (folders made before the marker existed have only this). */
  private static boolean writtenByUs(Path config) throws IOException {
    if (!Files.isRegularFile(config)) {
      return false;
    }
    try (Stream<String> lines = Files.lines(config, StandardCharsets.UTF_8)) {
      return lines.findFirst().map(HEADER::equals).orElse(false);
    }
  }

  String restAddress() {
    return restAddress;
  }

  Path confDir() {
    return dir.resolve("conf");
  }

  Path log4jConfig() {
    return confDir().resolve("log4j.properties");
  }

  Path logDir() {
    return dir.resolve("log");
  }

  /** The last lines of a process's log and console output, for an error message. */
  String tail(String process) {
    StringBuilder b = new StringBuilder();
    for (String ext : List.of(".log", ".out")) {
      Path p = logDir().resolve(process + ext);
      try {
        List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
        b.append("== ").append(p).append('\n');
        lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> b.append(l).append('\n'));
      } catch (IOException e) {
        b.append("== ").append(p).append(": ").append(e.getMessage()).append('\n');
      }
    }
    return b.toString().strip();
  }

  private static void deleteTree(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(q);
      }
    }
  }
}
