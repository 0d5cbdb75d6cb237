package io.pagemark.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * A real {@code redis-server} for the integration tests and the benchmark suite, in its own process on a free
 * loopback port, without persistence ({@code --save "" --appendonly no}). If redis-server is not installed,
 * {@code bin/ensure-redis} installs it; if it still cannot start, {@link #start()} throws with the server's log
 * (tests and benchmarks fail, they never skip). {@link #kill()} and {@link #restart()} simulate a crash and a restart
 * on the same port.
 */
public final class RedisServer implements LocalService {
  private static final long START_TIMEOUT_MILLIS = 20_000;
  private static final int PING_TIMEOUT_MILLIS = 10_000;

  private final String executable;
  private final int port;
  private final Path dir;
  private final Path log;
  private Process process;

  private RedisServer(String executable, int port, Path dir, Path log) {
    this.executable = executable;
    this.port = port;
    this.dir = dir;
    this.log = log;
  }

  /** Starts a server on a free port; its log lives in a temporary folder, deleted when it is closed. */
  public static RedisServer start() throws IOException {
    Path dir = Files.createTempDirectory("pagemark-redis");
    return start(0, dir, dir.resolve("redis.log"));
  }

  /** As {@link #start()}, on {@code port} (0: a free one), logging to {@code log}, which is kept. */
  public static RedisServer start(int port, Path log) throws IOException {
    return start(port, Files.createTempDirectory("pagemark-redis"), log);
  }

  private static RedisServer start(int port, Path dir, Path log) throws IOException {
    String executable = executable();
    RedisServer s = new RedisServer(executable, port == 0 ? LocalProcess.freePort() : port, dir, log);
    s.launch();
    return s;
  }

  @Override
  public String name() {
    return "redis-server";
  }

  /** The server's database 0. */
  @Override
  public String endpoint() {
    return uri();
  }

  public String uri() {
    return "redis://127.0.0.1:" + port + "/0";
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public String exitStatus() {
    return LocalProcess.exitStatus(process);
  }

  @Override
  public void ping() throws IOException {
    try (Jedis j = new Jedis("127.0.0.1", port, PING_TIMEOUT_MILLIS)) {
      String pong = j.ping();
      if (!"PONG".equals(pong)) {
        throw new IOException("PING answered " + pong);
      }
    } catch (RuntimeException e) {
      throw new IOException("PING failed: " + e.getMessage(), e);
    }
  }

  @Override
  public List<Path> logs() {
    return List.of(log);
  }

  /** A new connection; the caller closes it. */
  public Jedis client() {
    return new Jedis("127.0.0.1", port);
  }

  /** Kills the server at once (SIGKILL: no shutdown, no save) and waits until it is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      throw new IllegalStateException("redis-server on port " + port + " did not die within 10 s");
    }
  }

  /** Starts the server again on the same port, empty. */
  public void restart() throws IOException {
    if (process.isAlive()) {
      throw new IllegalStateException("kill() the server before restarting it");
    }
    launch();
  }

  private void launch() throws IOException {
    List<String> cmd = new ArrayList<>(List.of(executable, "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no", "--logfile",
        log.toString()));
    // what it prints before its log is open (a bad option, say) goes to the same file
    process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(
        log.toFile())).start();
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
    RuntimeException last = null;
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("redis-server " + exitStatus() + " on port " + port + ":\n" + tail(log));
      }
      try (Jedis j = client()) {
        if ("PONG".equals(j.ping())) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      try {
        process.waitFor(20, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    process.destroyForcibly();
    throw new IOException("redis-server did not answer PING on port " + port + " within " + START_TIMEOUT_MILLIS
        + " ms (" + (last == null ? "interrupted" : last.getMessage()) + "):\n" + tail(log));
  }

  /** redis-server from PATH, installed by bin/ensure-redis when missing. */
  static synchronized String executable() throws IOException {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      Path p = Path.of(d, "redis-server");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    Path script = ensureScript();
    Process p = new ProcessBuilder("bash", script.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out;
    try {
      if (!p.waitFor(15, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException(script + " did not finish within 15 minutes");
      }
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while installing redis-server", e);
    }
    if (p.exitValue() != 0 || out.isEmpty()) {
      throw new IOException("redis-server is not installed and " + script + " could not install it (exit code "
          + p.exitValue() + "); install Redis 7 and put redis-server on PATH");
    }
    String[] lines = out.split("\n");
    return lines[lines.length - 1];
  }

  private static Path ensureScript() throws IOException {
    try {
      return LocalProcess.repoRoot().resolve("bin").resolve("ensure-redis");
    } catch (IOException e) {
      throw new IOException("redis-server is not installed, and " + e.getMessage(), e);
    }
  }

  private static String tail(Path log) {
    return LocalProcess.tail(log, 20) + "\n";
  }

  @Override
  public String toString() {
    return name() + " at " + uri();
  }

  /** Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its working folder. */
  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      LocalProcess.stop(process);
    }
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(f);
      }
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // a leftover temporary folder is harmless
    }
  }
}
