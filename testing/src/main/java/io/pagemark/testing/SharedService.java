package io.pagemark.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * One local service for a whole JVM, started on first use and stopped at exit. {@link #get()} checks it first: if
 * its process died, or it does not answer three pings a second apart, it is stopped and started again (on the same
 * port when that port is still free, so that endpoints handed out earlier stay valid, else on a free one), with a new
 * log file; what happened is printed to stderr and kept for {@link #report()}. If it cannot start, {@link #get()}
 * throws with the log's tail, and keeps throwing that failure for the rest of the JVM rather than waiting again.
 * Thread-safe.
 */
public final class SharedService<S extends LocalService> {
  /** Starts the service. */
  @FunctionalInterface
  public interface Launcher<S> {
    /**
     * Starts the service on {@code port} (0: any free port), its processes' output in {@code log}, and returns once
     * it answers; throws with the log's tail when it does not.
     */
    S start(int port, Path log) throws IOException;
  }

  private static final int PINGS = 3;
  private static final int LOG_LINES = 30;

  private final String id;
  private final Launcher<S> launcher;
  private final List<String> history = new ArrayList<>();
  private S current;
  private IOException failed;
  private boolean stopAtExit;

  private SharedService(String id, Launcher<S> launcher) {
    this.id = id;
    this.launcher = launcher;
  }

  /** A shared service whose log files are named {@code <id>-<n>.log} ({@link LocalProcess#newLog}). */
  public static <S extends LocalService> SharedService<S> of(String id, Launcher<S> launcher) {
    return new SharedService<>(id, launcher);
  }

  /** The running service, started, or restarted after a death, as the class comment says. */
  public synchronized S get() throws IOException {
    if (failed != null) {
      throw new IOException(id + " could not start earlier in this JVM, so every test that needs it fails: "
          + failed.getMessage(), failed);
    }
    if (current == null) {
      current = start(0);
      return current;
    }
    String problem = problem(current);
    if (problem == null) {
      return current;
    }
    S dead = current;
    current = null;
    note(dead.name() + " at " + dead.endpoint() + " " + problem + "; restarting it", tails(dead));
    dead.close();
    current = start(dead.port());
    return current;
  }

  /**
   * What a failing test's output should show: whether the service is running and answering now, the restarts this
   * JVM saw, and the tail of its logs.
   */
  public synchronized String report() {
    StringBuilder b = new StringBuilder();
    if (current == null) {
      b.append(id).append(failed != null ? ": could not start: " + failed.getMessage() : ": not running");
    } else {
      String problem = problem(current);
      b.append(current.name()).append(" at ").append(current.endpoint())
          .append(problem == null ? " is running and answering" : " " + problem);
    }
    history.forEach(h -> b.append("\n  earlier: ").append(h));
    if (current != null) {
      b.append("\n").append(tails(current));
    }
    return b.toString();
  }

  /** Null when the service is alive and answers; else what is wrong with it. */
  private String problem(S s) {
    IOException last = null;
    for (int i = 0; i < PINGS; i++) {
      if (!s.isAlive()) {
        return "died (" + s.exitStatus() + ")";
      }
      try {
        s.ping();
        return null;
      } catch (IOException e) {
        last = e;
      }
      if (i < PINGS - 1) {
        try {
          Thread.sleep(1000); // a slow moment on a loaded machine is not a death: ask again a second later
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    return "is running but did not answer " + PINGS + " pings (" + (last == null ? "interrupted"
        : last.getMessage()) + ")";
  }

  private S start(int port) throws IOException {
    Path log = LocalProcess.newLog(id);
    S s;
    try {
      s = launcher.start(port, log);
    } catch (IOException first) {
      if (port == 0 && !portTaken(first)) {
        failed = first;
        throw first;
      }
      // the port was taken meanwhile (by another process on this machine): any free port will do
      note(id + " could not start on port " + (port == 0 ? "(free a moment before)" : port)
          + "; starting it on another port", first.getMessage());
      log = LocalProcess.newLog(id);
      try {
        s = launcher.start(0, log);
      } catch (IOException second) {
        second.addSuppressed(first);
        failed = second;
        throw second;
      }
    }
    if (!stopAtExit) {
      stopAtExit = true;
      Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "stop " + id));
    }
    System.err.printf("%s: %s started at %s (log %s)%n", id, s.name(), s.endpoint(), log);
    return s;
  }

  private static boolean portTaken(IOException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("Address already in use") || m.contains("EADDRINUSE") || m.contains("BindException");
  }

  private synchronized void stop() {
    if (current != null) {
      current.close();
      current = null;
    }
  }

  /** Prints what happened, and keeps its summary for the report. */
  private void note(String summary, String details) {
    String line = LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " " + summary;
    history.add(line);
    System.err.println(id + ": " + line + ". " + details);
  }

  private static String tails(LocalService s) {
    StringBuilder b = new StringBuilder();
    for (Path log : s.logs()) {
      b.append("The log ").append(log).append(" ends with:\n").append(LocalProcess.tail(log, LOG_LINES))
          .append("\n");
    }
    return b.toString();
  }
}
