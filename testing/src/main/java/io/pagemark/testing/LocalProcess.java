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
