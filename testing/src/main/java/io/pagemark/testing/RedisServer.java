package io.pagemark.testing;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
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
public final class RedisServer implements AutoCloseable {
  private static final long START_TIMEOUT_MILLIS = 20_000;

  private final String executable;
  private final int port;
  private final Path dir;
  private Process process;

  private RedisServer(String executable, int port, Path dir) {
    this.executable = executable;
    this.port = port;
    this.dir = dir;
  }

  /** Starts a server on a free port. */
  public static RedisServer start() throws IOException {
    RedisServer s = new RedisServer(executable(), LocalProcess.freePort(), Files.createTempDirectory("pagemark-redis"));
    s.launch();
    return s;
  }

  public String uri() {
    return "redis://127.0.0.1:" + port + "/0";
  }

  public int port() {
    return port;
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
    Path log = dir.resolve("redis.log");
    List<String> cmd = new ArrayList<>(List.of(executable, "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no", "--logfile",
        log.toString()));
    process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("stdout").toFile()).start();
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
    RuntimeException last = null;
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("redis-server exited with code " + process.exitValue() + " on port " + port + ":\n"
            + tail(log) + tail(dir.resolve("stdout")));
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
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path s = d.resolve("bin").resolve("ensure-redis");
      if (Files.isRegularFile(s)) {
        return s;
      }
    }
    throw new IOException("redis-server is not installed and bin/ensure-redis was not found above "
        + Path.of("").toAbsolutePath());
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())) + "\n";
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() throws IOException {
    if (process != null && process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          kill();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
    try (var files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(dir);
  }
}
