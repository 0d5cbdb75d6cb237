package io.pagemark.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LocalService} that is one process answering on {@code http://127.0.0.1:PORT} and logging to one file:
 * what DynamoDB Local, kinesalite and s3proxy share. A subclass says how to ping it; {@link #awaitReady} waits for
 * the first answer and stops the process, with the log's tail in the message, when none comes.
 */
public abstract class ProcessService implements LocalService {
  /** How long one ping may take. */
  protected static final Duration PING_TIMEOUT = Duration.ofSeconds(10);
  private static final long POLL_MILLIS = 100;

  private final Process process;
  private final int port;
  private final Path log;
  private final boolean deleteLog;

  /** Takes over a started process; {@code deleteLog}: the log is a temporary file, deleted by {@link #close()}. */
  protected ProcessService(Process process, int port, Path log, boolean deleteLog) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.deleteLog = deleteLog;
  }

  @Override
  public String endpoint() {
    return "http://127.0.0.1:" + port;
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
  public List<Path> logs() {
    return List.of(log);
  }

  /**
   * Returns once {@link #ping()} is answered. Throws, after stopping the process, when it ends first or no answer
   * comes within {@code timeout}; the message carries the log's last lines.
   */
  protected final void awaitReady(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    IOException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        String status = exitStatus();
        close();
        throw new IOException(name() + " " + status + " on port " + port + ":\n" + LocalProcess.tail(log, 20));
      }
      try {
        ping();
        return;
      } catch (IOException e) {
        last = e;
      }
      try {
        process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    close();
    throw new IOException(name() + " did not answer at " + endpoint() + " within " + timeout.toSeconds() + " s ("
        + (last == null ? "interrupted" : last.getMessage()) + "):\n" + LocalProcess.tail(log, 20));
  }

  /** Stops the process (SIGTERM, then SIGKILL after 10 s), removes what {@link #cleanUp()} names and a temporary log. */
  @Override
  public void close() {
    if (process.isAlive()) {
      LocalProcess.stop(process);
    }
    try {
      cleanUp();
      if (deleteLog) {
        Files.deleteIfExists(log);
      }
    } catch (IOException ignored) {
      // leftover temporary files are harmless
    }
  }

  /** Removes what the service kept beside its process once it has stopped; nothing unless overridden. */
  protected void cleanUp() throws IOException {}

  @Override
  public String toString() {
    return name() + " at " + endpoint();
  }
}
