package io.pagemark.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the launchers of local services (DynamoDB Local, kinesalite, redis-server, Flink) share. */
public final class LocalProcess {
  /** System property naming the folder of service logs; {@code target/services} of the working directory if unset. */
  public static final String LOG_DIR_PROPERTY = "pagemark.services.logDir";

  private LocalProcess() {}

  /** A loopback port nobody listens on now (the service started next binds it). */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * A new, empty log file {@code <name>-<n>.log} in the folder of service logs, {@code n} the first number not taken
   * (also by another JVM of the same module: surefire and failsafe write to the same {@code target/}).
   */
  public static Path newLog(String name) throws IOException {
    Path dir = Path.of(System.getProperty(LOG_DIR_PROPERTY, Path.of("target", "services").toString()))
        .toAbsolutePath().normalize();
    Files.createDirectories(dir);
    for (int n = 1; ; n++) {
      try {
        return Files.createFile(dir.resolve(name + "-" + n + ".log"));
      } catch (FileAlreadyExistsException taken) {
        // the next number
      }
    }
  }

  /** The last {@code lines} lines of a log, or a note saying why there is none. */
  public static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | java.io.UncheckedIOException e) {
      return "(no log at " + log + ": " + e.getMessage() + ")";
    }
  }

  /** How a process ended, for messages: its exit code, with the signal when it was killed by one. */
  static String exitStatus(Process process) {
    if (process.isAlive()) {
      return "running";
    }
    int code = process.exitValue();
    return code > 128 && code < 160 ? "exited with code " + code + " (killed by signal " + (code - 128) + ")"
        : "exited with code " + code;
  }

  /**
   * The repository's root: the nearest folder at or above the working directory that holds {@code bin/ensure-redis}
   * (tests run in a module's folder, the launchers and benchmarks in the root).
   */
  public static Path repoRoot() throws IOException {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("bin").resolve("ensure-redis"))) {
        return d;
      }
    }
    throw new IOException("the pagemark repository (a folder with bin/ensure-redis) was not found at or above "
        + Path.of("").toAbsolutePath());
  }

  /** Asks the process to stop (SIGTERM), then kills it if it has not stopped within 10 seconds. */
  static void stop(Process process) {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
