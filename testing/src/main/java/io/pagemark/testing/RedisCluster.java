package io.pagemark.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * A real Redis Cluster for the integration tests and the benchmark suite: three {@code redis-server} masters
 * ({@code cluster-enabled yes}, no persistence, no replicas) on loopback ports, joined by
 * {@code redis-cli --cluster create}. {@link #start()} returns once every master says {@code cluster_state:ok}; if
 * redis-server is missing, {@code bin/ensure-redis} installs it; if the cluster cannot form, it throws with the logs'
 * tails (tests fail, they never skip). {@link #reshard} moves slots between masters with
 * {@code redis-cli --cluster reshard}, as an operator would, while clients keep working.
 */
public final class RedisCluster implements LocalService {
  static final int MASTERS = 3;
  private static final long START_TIMEOUT_MILLIS = 30_000;
  private static final int PING_TIMEOUT_MILLIS = 10_000;
  /** Redis listens on PORT + 10000 for its cluster bus: both must be free, below 65536. */
  private static final int BUS_OFFSET = 10_000;

  private final String executable;
  private final String cli;
  private final List<Integer> ports;
  private final Path dir;
  private final Path log;
  private final List<Process> processes = new ArrayList<>();

  private RedisCluster(String executable, List<Integer> ports, Path dir, Path log) {
    this.executable = executable;
    this.cli = Path.of(executable).resolveSibling("redis-cli").toString();
    this.ports = List.copyOf(ports);
    this.dir = dir;
    this.log = log;
  }

  /** Starts a cluster on free ports; its logs live in a temporary folder, deleted when it is closed. */
  public static RedisCluster start() throws IOException {
    Path dir = Files.createTempDirectory("pagemark-redis-cluster");
    return start(0, dir, dir.resolve("cluster.log"));
  }

  /**
   * As {@link #start()}, the first master on {@code port} (0: a free one), the others on free ports; {@code log}
   * gets {@code redis-cli}'s output and names the masters' logs ({@code log}{@code -nodeN.log}), all kept.
   */
  public static RedisCluster start(int port, Path log) throws IOException {
    return start(port, Files.createTempDirectory("pagemark-redis-cluster"), log);
  }

  private static RedisCluster start(int port, Path dir, Path log) throws IOException {
    String executable = RedisServer.executable();
    List<Integer> ports = new ArrayList<>();
    if (port != 0) {
      ports.add(port);
    }
    while (ports.size() < MASTERS) {
      int p = freeClusterPort();
      if (!ports.contains(p)) {
        ports.add(p);
      }
    }
    RedisCluster c = new RedisCluster(executable, ports, dir, log);
    try {
      c.launch();
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** A port whose cluster bus port (+10000) is free too. */
  private static int freeClusterPort() throws IOException {
    for (int attempt = 0; attempt < 200; attempt++) {
      int p = ThreadLocalRandom.current().nextInt(20_000, 30_000);
      if (free(p) && free(p + BUS_OFFSET)) {
        return p;
      }
    }
    throw new IOException("found no free pair of loopback ports PORT, PORT+10000 in 20000..40000");
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public String name() {
    return "Redis Cluster";
  }

  @Override
  public String endpoint() {
    return uri();
  }

  /** {@code redis-cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3}. */
  public String uri() {
    List<String> nodes = new ArrayList<>();
    ports.forEach(p -> nodes.add("127.0.0.1:" + p));
    return "redis-cluster://" + String.join(",", nodes);
  }

  /** The first master's port. */
  @Override
  public int port() {
    return ports.get(0);
  }

  /** Every master's port. */
  public List<Integer> ports() {
    return ports;
  }

  @Override
  public boolean isAlive() {
    return !processes.isEmpty() && processes.stream().allMatch(Process::isAlive);
  }

  @Override
  public String exitStatus() {
    List<String> s = new ArrayList<>();
    for (int i = 0; i < processes.size(); i++) {
      s.add("node " + (i + 1) + " " + LocalProcess.exitStatus(processes.get(i)));
    }
    return String.join(", ", s);
  }

  /** Every master answers and says {@code cluster_state:ok}. */
  @Override
  public void ping() throws IOException {
    for (int p : ports) {
      try (Jedis j = new Jedis("127.0.0.1", p, PING_TIMEOUT_MILLIS)) {
        String info = j.clusterInfo();
        if (!info.contains("cluster_state:ok")) {
          throw new IOException("node on port " + p + " says " + info.lines().findFirst().orElse(info));
        }
      } catch (RuntimeException e) {
        throw new IOException("CLUSTER INFO on port " + p + " failed: " + e.getMessage(), e);
      }
    }
  }

  @Override
  public List<Path> logs() {
    List<Path> logs = new ArrayList<>(List.of(log));
    for (int i = 0; i < ports.size(); i++) {
      logs.add(nodeLog(i));
    }
    return logs;
  }

  /** A new connection to master {@code i} (0-based, in {@link #ports()} order); the caller closes it. */
  public Jedis node(int i) {
    return new Jedis("127.0.0.1", ports.get(i));
  }

  /** The node id of master {@code i}. */
  public String nodeId(int i) {
    try (Jedis j = node(i)) {
      return j.clusterMyId();
    }
  }

  /** The index (in {@link #ports()} order) of the master that owns {@code slot} now. */
  public int ownerOf(int slot) {
    try (Jedis j = node(0)) {
      for (Object range : j.clusterSlots()) {
        List<?> r = (List<?>) range;
        long from = (Long) r.get(0);
        long to = (Long) r.get(1);
        if (slot >= from && slot <= to) {
          long port = (Long) ((List<?>) r.get(2)).get(1);
          return ports.indexOf((int) port);
        }
      }
    }
    throw new IllegalStateException("no master owns slot " + slot);
  }

  /**
   * Moves {@code slots} hash slots from master {@code from} to master {@code to} with
   * {@code redis-cli --cluster reshard ... --cluster-yes} (keys and all, as an operator does; clients see MOVED and
   * ASK meanwhile) and returns when it is done; throws with redis-cli's output when it fails.
   */
  public void reshard(int from, int to, int slots) throws IOException {
    redisCli(List.of("--cluster", "reshard", "127.0.0.1:" + ports.get(0), "--cluster-from", nodeId(from),
        "--cluster-to", nodeId(to), "--cluster-slots", Integer.toString(slots), "--cluster-yes"), 300);
  }

  private void launch() throws IOException {
    for (int i = 0; i < ports.size(); i++) {
      int p = ports.get(i);
      Path nodeDir = Files.createDirectories(dir.resolve("node-" + p));
      List<String> cmd = List.of(executable, "--port", Integer.toString(p), "--bind", "127.0.0.1", "--save", "",
          "--appendonly", "no", "--dir", nodeDir.toString(), "--daemonize", "no", "--logfile",
          nodeLog(i).toString(), "--cluster-enabled", "yes", "--cluster-config-file",
          nodeDir.resolve("nodes.conf").toString(), "--cluster-node-timeout", "5000");
      processes.add(new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(nodeLog(i).toFile())).start());
    }
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
    for (int i = 0; i < ports.size(); i++) {
      awaitPong(i, deadline);
    }
    List<String> create = new ArrayList<>(List.of("--cluster", "create"));
    ports.forEach(p -> create.add("127.0.0.1:" + p));
    create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
    redisCli(create, 60);
    IOException last = null;
    while (System.currentTimeMillis() < deadline) {
      try {
        ping();
        return;
      } catch (IOException e) {
        last = e;
      }
      sleep(50);
    }
    throw new IOException("the Redis Cluster on ports " + ports + " did not reach cluster_state:ok within "
        + START_TIMEOUT_MILLIS + " ms (" + (last == null ? "?" : last.getMessage()) + "):\n" + tails());
  }

  private void awaitPong(int i, long deadline) throws IOException {
    RuntimeException last = null;
    while (System.currentTimeMillis() < deadline) {
      if (!processes.get(i).isAlive()) {
        throw new IOException("redis-server " + LocalProcess.exitStatus(processes.get(i)) + " on port "
            + ports.get(i) + ":\n" + LocalProcess.tail(nodeLog(i), 20));
      }
      try (Jedis j = node(i)) {
        if ("PONG".equals(j.ping())) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      sleep(20);
    }
    throw new IOException("redis-server did not answer PING on port " + ports.get(i) + " ("
        + (last == null ? "?" : last.getMessage()) + "):\n" + LocalProcess.tail(nodeLog(i), 20));
  }

  private void redisCli(List<String> args, int timeoutSeconds) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(cli));
    cmd.addAll(args);
    Files.writeString(log, "$ " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8,
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("redis-cli " + String.join(" ", args) + " did not finish within " + timeoutSeconds
            + " s:\n" + LocalProcess.tail(log, 20));
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running redis-cli", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException("redis-cli " + String.join(" ", args) + " failed (exit code " + p.exitValue() + "):\n"
          + LocalProcess.tail(log, 20));
    }
  }

  private Path nodeLog(int i) {
    String name = log.getFileName().toString().replaceFirst("\\.log$", "");
    return log.resolveSibling(name + "-node" + (i + 1) + ".log");
  }

  private String tails() {
    StringBuilder b = new StringBuilder(LocalProcess.tail(log, 20));
    for (int i = 0; i < ports.size(); i++) {
      b.append("\n-- node ").append(i + 1).append(":\n").append(LocalProcess.tail(nodeLog(i), 10));
    }
    return b.toString();
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the Redis Cluster", e);
    }
  }

  @Override
  public String toString() {
    return name() + " at " + uri();
  }

  /** Stops every master (SIGTERM, then SIGKILL after 10 s) and removes the cluster's working folders. */
  @Override
  public void close() {
    for (Process p : processes) {
      if (p.isAlive()) {
        LocalProcess.stop(p);
      }
    }
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> {
        if (!f.equals(log) && !logs().contains(f)) {
          f.toFile().delete();
        }
      });
    } catch (IOException e) {
      // a leftover temporary folder is harmless
    }
  }
}
