package io.pagemark.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for the integration tests and the benchmark suite: a fresh cluster ({@code initdb}) in a
 * temporary directory, started with {@code pg_ctl} on a free loopback port ({@code listen_addresses=127.0.0.1}, its
 * socket in the same directory), trust authentication for the superuser {@value #USER}. PostgreSQL refuses to run as
 * root, so as root the cluster belongs to the system user {@value #OS_USER} (created when missing) and its commands
 * run through {@code runuser}. If the server binaries are missing, {@code bin/ensure-postgres} installs Debian's
 * {@code postgresql}; if the server still cannot start, {@link #start()} throws with its log (tests and benchmarks
 * fail, they never skip). {@link #close()} stops it, appends the server's log to the kept log and deletes the cluster.
 */
public final class PostgresServer implements LocalService {
  /** The database superuser of the cluster. */
  public static final String USER = "pagemark";
  /** The operating-system user that owns the cluster when the tests run as root. */
  static final String OS_USER = "pagemark-pg";
  private static final long COMMAND_TIMEOUT_SECONDS = 120;
  private static final int PING_TIMEOUT_SECONDS = 10;

  private final Path binDir;
  private final Path dir;
  private final int port;
  private final boolean asRoot;
  private final Path log;
  private long pid;
  private boolean running;

  private PostgresServer(Path binDir, Path dir, int port, boolean asRoot, Path log) {
    this.binDir = binDir;
    this.dir = dir;
    this.port = port;
    this.asRoot = asRoot;
    this.log = log;
  }

  /** Creates a cluster and starts it on a free port; its log is deleted with it. */
  public static PostgresServer start() throws IOException {
    Path dir = Files.createTempDirectory("pagemark-pg");
    return start(0, dir, dir.resolve("commands.log"));
  }

  /**
   * As {@link #start()}, on {@code port} (0: a free one); the output of initdb and pg_ctl goes to {@code log}, and the
   * server's own log is appended to it when the server is closed, so that it outlives the cluster.
   */
  public static PostgresServer start(int port, Path log) throws IOException {
    return start(port, Files.createTempDirectory("pagemark-pg"), log);
  }

  private static PostgresServer start(int port, Path dir, Path log) throws IOException {
    boolean root = "root".equals(System.getProperty("user.name"));
    PostgresServer s = new PostgresServer(binDir(), dir, port == 0 ? LocalProcess.freePort() : port, root, log);
    try {
      s.init();
      s.launch();
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  @Override
  public String name() {
    return "PostgreSQL";
  }

  /** The cluster's {@code postgres} database. */
  @Override
  public String endpoint() {
    return url("postgres");
  }

  @Override
  public boolean isAlive() {
    return running && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Override
  public String exitStatus() {
    return isAlive() ? "running" : running ? "postmaster " + pid + " is gone" : "stopped";
  }

  @Override
  public void ping() throws IOException {
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.setQueryTimeout(PING_TIMEOUT_SECONDS);
      s.execute("SELECT 1");
    } catch (SQLException e) {
      throw new IOException("SELECT 1 failed: " + e.getMessage(), e);
    }
  }

  /** The server's log (while the cluster exists), then the kept log of initdb and pg_ctl. */
  @Override
  public List<Path> logs() {
    return Files.exists(serverLog()) ? List.of(serverLog(), log) : List.of(log);
  }

  /** Kills the postmaster at once (SIGKILL: no shutdown), as a crash would, and waits until it is gone. */
  public void kill() throws InterruptedException {
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    long deadline = System.currentTimeMillis() + 10_000;
    while (isAlive()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException("PostgreSQL's postmaster " + pid + " did not die within 10 s");
      }
      ProcessHandle.of(pid).ifPresent(h -> h.onExit().completeOnTimeout(h, 100, TimeUnit.MILLISECONDS).join());
    }
  }

  /** {@code jdbc:postgresql://127.0.0.1:PORT/DB?user=pagemark}. */
  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER;
  }

  @Override
  public int port() {
    return port;
  }

  /** A new connection to a database of the cluster; the caller closes it. */
  public Connection connect(String database) throws SQLException {
    java.util.Properties p = new java.util.Properties();
    p.setProperty("connectTimeout", Integer.toString(PING_TIMEOUT_SECONDS));
    return DriverManager.getConnection(url(database), p);
  }

  /** Creates a database (each test class its own, so that they share a server without sharing tables). */
  public String createDatabase(String name) throws SQLException {
    try (Connection c = connect("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
      s.execute("CREATE DATABASE \"" + name + "\"");
    }
    return url(name);
  }

  private void init() throws IOException {
    Path data = dir.resolve("data");
    if (asRoot) {
      ensureOsUser();
      UserPrincipal owner = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(OS_USER);
      Files.setOwner(dir, owner);
    }
    run(List.of(binDir.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "--auth=trust",
        "--encoding=UTF8", "--locale=C", "--no-sync"));
  }

  private void launch() throws IOException {
    Path data = dir.resolve("data");
    String options = "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1";
    try {
      run(List.of(binDir.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", serverLog().toString(), "-o",
          options, "-w", "-t", "60", "start"));
    } catch (IOException e) {
      throw new IOException(e.getMessage() + "\nserver log:\n" + tail(serverLog()), e);
    }
    running = true;
    // pg_ctl detaches the server from this JVM: stop it when the JVM exits without closing it
    Runtime.getRuntime().addShutdownHook(new Thread(this::stopQuietly, "stop PostgreSQL on port " + port));
    try {
      // pg_ctl returns once the postmaster accepts connections; its pid is the first line of postmaster.pid
      pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
    } catch (IOException | RuntimeException e) {
      throw new IOException("PostgreSQL started on port " + port + " but its postmaster.pid is unreadable ("
          + e.getMessage() + "):\n" + tail(serverLog()), e);
    }
    try {
      ping();
    } catch (IOException e) {
      throw new IOException("PostgreSQL started on port " + port + " but does not answer (" + e.getMessage()
          + "):\n" + tail(serverLog()), e);
    }
  }

  private Path serverLog() {
    return dir.resolve("postgres.log");
  }

  /**
   * Runs a PostgreSQL command (as {@value #OS_USER} when root), its output appended to the log; throws with the
   * log's tail when it fails.
   */
  private void run(List<String> command) throws IOException {
    Path output = log;
    List<String> cmd = new ArrayList<>();
    if (asRoot) {
      cmd.addAll(List.of("runuser", "-u", OS_USER, "--"));
    }
    cmd.addAll(command);
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
    try {
      if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish within " + COMMAND_TIMEOUT_SECONDS + " s:\n"
            + tail(output));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + String.join(" ", cmd), e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " exited with code " + p.exitValue() + ":\n" + tail(output));
    }
  }

  /** Creates the system user that owns clusters when the tests run as root. */
  private static synchronized void ensureOsUser() throws IOException {
    Process id = new ProcessBuilder("id", "-u", OS_USER).redirectErrorStream(true).start();
    try {
      if (id.waitFor() == 0) {
        return;
      }
      Process add = new ProcessBuilder("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
          OS_USER).redirectErrorStream(true).start();
      String out = new String(add.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      // 9: created meanwhile by another JVM
      if (add.waitFor() != 0 && add.exitValue() != 9) {
        throw new IOException("PostgreSQL refuses to run as root, and the user " + OS_USER + " to run it as could"
            + " not be created (useradd exited with " + add.exitValue() + "): " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while creating the user " + OS_USER, e);
    }
  }

  /** The directory of initdb and pg_ctl, installed by bin/ensure-postgres when missing. */
  static synchronized Path binDir() throws IOException {
    Path script = null;
    for (Path d = Path.of("").toAbsolutePath(); d != null && script == null; d = d.getParent()) {
      Path s = d.resolve("bin").resolve("ensure-postgres");
      if (Files.isRegularFile(s)) {
        script = s;
      }
    }
    if (script == null) {
      Path known = Path.of("/usr/lib/postgresql/15/bin");
      if (Files.isExecutable(known.resolve("pg_ctl"))) {
        return known;
      }
      throw new IOException("PostgreSQL's initdb and pg_ctl were not found, and bin/ensure-postgres (which installs"
          + " them) was not found above " + Path.of("").toAbsolutePath());
    }
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
      throw new IOException("interrupted while looking for PostgreSQL", e);
    }
    if (p.exitValue() != 0 || out.isEmpty()) {
      throw new IOException("PostgreSQL is not installed and " + script + " could not install it (exit code "
          + p.exitValue() + "); install PostgreSQL 15 and put initdb and pg_ctl on PATH");
    }
    String[] lines = out.split("\n");
    return Path.of(lines[lines.length - 1].trim());
  }

  private static String tail(Path log) {
    return LocalProcess.tail(log, 20) + "\n";
  }

  private synchronized void stopQuietly() {
    if (!running) {
      return;
    }
    try {
      if (isAlive()) {
        run(List.of(binDir.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
            "-w", "stop"));
      }
      running = false;
    } catch (IOException e) {
      System.err.println("PostgresServer: could not stop the server on port " + port + ": " + e.getMessage());
    }
  }

  /**
   * Stops the server (immediate shutdown: a test cluster needs no checkpoint), keeps its log in the log file and
   * deletes the cluster.
   */
  @Override
  public void close() {
    stopQuietly();
    if (running) {
      System.err.println("PostgresServer: PostgreSQL on port " + port + " did not stop; its cluster stays in " + dir);
      return;
    }
    if (!log.startsWith(dir) && Files.exists(serverLog())) {
      try {
        Files.writeString(log, "--- the server's log ---\n" + Files.readString(serverLog()),
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        // the server's log is lost; the commands' log stays
      }
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a leftover temporary folder is harmless
    }
  }

  @Override
  public String toString() {
    return "PostgreSQL on 127.0.0.1:" + port + " (cluster in " + dir + ")";
  }
}
