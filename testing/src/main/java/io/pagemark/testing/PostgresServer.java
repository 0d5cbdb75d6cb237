package io.pagemark.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * fail, they never skip). {@link #close()} stops it and deletes the cluster.
 */
public final class PostgresServer implements AutoCloseable {
  /** The database superuser of the cluster. */
  public static final String USER = "pagemark";
  /** The operating-system user that owns the cluster when the tests run as root. */
  static final String OS_USER = "pagemark-pg";
  private static final long COMMAND_TIMEOUT_SECONDS = 120;

  private final Path binDir;
  private final Path dir;
  private final int port;
  private final boolean asRoot;
  private boolean running;

  private PostgresServer(Path binDir, Path dir, int port, boolean asRoot) {
    this.binDir = binDir;
    this.dir = dir;
    this.port = port;
    this.asRoot = asRoot;
  }

  /** Creates a cluster and starts it on a free port. */
  public static PostgresServer start() throws IOException {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("pagemark-pg");
    PostgresServer s = new PostgresServer(binDir(), dir, LocalProcess.freePort(), root);
    try {
      s.init();
      s.launch();
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** {@code jdbc:postgresql://127.0.0.1:PORT/DB?user=pagemark}. */
  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + USER;
  }

  public int port() {
    return port;
  }

  /** A new connection to a database of the cluster; the caller closes it. */
  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(url(database));
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
        "--encoding=UTF8", "--locale=C", "--no-sync"), dir.resolve("initdb.log"));
  }

  private void launch() throws IOException {
    Path data = dir.resolve("data");
    String options = "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1";
    try {
      run(List.of(binDir.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", log().toString(), "-o", options,
          "-w", "-t", "60", "start"), dir.resolve("pg_ctl.log"));
    } catch (IOException e) {
      throw new IOException(e.getMessage() + "\nserver log:\n" + tail(log()), e);
    }
    running = true;
    Runtime.getRuntime().addShutdownHook(new Thread(this::stopQuietly, "pagemark-postgres-stop"));
    try (Connection c = connect("postgres")) {
      if (!c.isValid(10)) {
        throw new IOException("PostgreSQL on port " + port + " does not answer:\n" + tail(log()));
      }
    } catch (SQLException e) {
      throw new IOException("PostgreSQL started on port " + port + " but refuses connections (" + e.getMessage()
          + "):\n" + tail(log()), e);
    }
  }

  private Path log() {
    return dir.resolve("postgres.log");
  }

  /** Runs a PostgreSQL command (as {@value #OS_USER} when root); throws with its output when it fails. */
  private void run(List<String> command, Path output) throws IOException {
    List<String> cmd = new ArrayList<>();
    if (asRoot) {
      cmd.addAll(List.of("runuser", "-u", OS_USER, "--"));
    }
    cmd.addAll(command);
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(output.toFile()).start();
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
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())) + "\n";
    } catch (IOException e) {
      return "(no log at " + log + ")\n";
    }
  }

  private synchronized void stopQuietly() {
    if (!running) {
      return;
    }
    try {
      run(List.of(binDir.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
          "-w", "stop"), dir.resolve("pg_ctl-stop.log"));
      running = false;
    } catch (IOException e) {
      System.err.println("PostgresServer: could not stop the server on port " + port + ": " + e.getMessage());
    }
  }

  /** Stops the server (immediate shutdown: a test cluster needs no checkpoint) and deletes the cluster. */
  @Override
  public void close() throws IOException {
    stopQuietly();
    if (running) {
      throw new IOException("PostgreSQL on port " + port + " did not stop; its cluster stays in " + dir);
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public String toString() {
    return "PostgreSQL on 127.0.0.1:" + port + " (cluster in " + dir + ")";
  }
}
