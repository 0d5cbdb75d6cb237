package io.pagemark.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A real service that runs in processes of its own on loopback for the tests, the demo and the benchmarks. It is
 * alive while its processes run and healthy while it also answers {@link #ping()}; what its processes print goes to
 * {@link #logs()}, which outlive it. Closing it stops its processes.
 */
public interface LocalService extends AutoCloseable {
  /** What it is, for messages: "DynamoDB Local", "redis-server". */
  String name();

  /** Where clients reach it ({@code http://127.0.0.1:PORT}, {@code redis://...}). */
  String endpoint();

  /** The loopback port clients connect to; a restart tries the same one first, so that endpoints stay valid. */
  int port();

  /** Whether all of its processes are still running. */
  boolean isAlive();

  /** "running", or how it ended (exit code, signal), for messages. */
  String exitStatus();

  /**
   * Makes one cheap request and returns once it is answered; throws with what went wrong when it is not answered
   * within 10 seconds. Does not retry: a caller that tolerates a slow moment asks again.
   */
  void ping() throws IOException;

  /** The files its processes write to, most telling first. */
  List<Path> logs();

  /** Stops its processes (politely, then forcibly); the logs stay. */
  @Override
  void close();
}
