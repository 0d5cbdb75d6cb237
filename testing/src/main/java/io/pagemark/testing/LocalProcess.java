package io.pagemark.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

/** What the launchers of local services (DynamoDB Local, kinesalite, redis-server, Flink) share. */
public final class LocalProcess {
  private LocalProcess() {}

  /** A loopback port nobody listens on now (the service started next binds it). */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The last {@code lines} lines of a log file, for error messages ("" when it cannot be read). */
  public static String tail(java.nio.file.Path log, int lines) {
    try {
      java.util.List<String> all = java.nio.file.Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())) + "\n";
    } catch (IOException | java.io.UncheckedIOException e) {
      return "";
    }
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
