package io.pagemark.stream;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/**
 * A real redis-server on a free loopback port, without persistence, for the transforms' tests; fails (never skips)
 * with what to do when redis-server is missing ({@code bin/ensure-redis} installs it).
 */
final class LocalRedis implements AutoCloseable {
  final int port;
  private final Process process;

  private LocalRedis(int port, Process process) {
    this.port = port;
    this.process = process;
  }

  static LocalRedis start() throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path dir = Files.createTempDirectory("pagemark-redis-test");
    Process p;
    try {
      p = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
          "--save", "", "--appendonly", "no", "--dir", dir.toString()))
          .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    } catch (IOException e) {
      throw new IOException("redis-server is not installed: run bin/ensure-redis (or apt-get install redis-server)", e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        j.ping();
        return new LocalRedis(port, p);
      } catch (RuntimeException e) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          p.destroyForcibly();
          throw new IOException("redis-server did not start on port " + port + ": "
              + Files.readString(dir.resolve("redis.log")), e);
        }
        Thread.sleep(50); // polling until the server answers, with a deadline
      }
    }
  }

  String uri() {
    return "redis://127.0.0.1:" + port + "/0";
  }

  Jedis client() {
    return new Jedis("127.0.0.1", port);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }
}
