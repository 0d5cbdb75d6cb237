package io.pagemark.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code pagemark resp} in a JVM of its own, started as {@code bin/pagemark resp} starts it (the JVM flags of
 * {@code server/resp-jvm.options}; the server module's classpath, {@code RespCommand} and picocli), so that its
 * memory is the server's alone. Waits for the line saying it listens; {@link #close} stops it with SIGTERM (it
 * drains) and kills it if it does not stop.
 */
final class RespProcess implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("pagemark resp: serving build .* on [^ ]+:(\\d+) ");

  private final Process process;
  private final int port;
  private final Path log;

  private RespProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /** The JVM flags {@code bin/pagemark resp} runs with (from {@code server/resp-jvm.options} under {@code repo}). */
  static List<String> jvmFlags(Path repo) throws IOException {
    return ChildJvm.optionsFile(repo.resolve("server").resolve("resp-jvm.options"));
  }

  /** Starts {@code pagemark resp} with these arguments on a free port; its output goes to {@code log}. */
  static RespProcess start(Path repo, List<String> args, Path log) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags(repo));
    Path server = repo.resolve("server").resolve("target");
    cmd.add("-cp");
    String picocliJar;
    try {
      picocliJar = Path.of(picocli.CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (java.net.URISyntaxException e) {
      throw new IOException("cannot locate picocli's jar", e);
    }
    cmd.add(String.join(java.io.File.pathSeparator, server.resolve("classes").toString(),
        Files.readString(server.resolve("runtime-classpath.txt")).trim(),
        repo.resolve("pipelines").resolve("target").resolve("classes").toString(), picocliJar));
    cmd.add("io.pagemark.pipelines.resp.RespCommand");
    cmd.add("--port=0");
    cmd.addAll(args);
    ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
    b.environment().putIfAbsent("MALLOC_ARENA_MAX", "2"); // as bin/pagemark sets it for resp
    Process p = b.start();
    BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new ArrayList<>();
    for (String line; (line = r.readLine()) != null; ) {
      seen.add(line);
      Matcher m = LISTENING.matcher(line);
      if (m.find()) {
        Thread pump = new Thread(() -> copy(r, log), "resp-log");
        pump.setDaemon(true);
        pump.start();
        return new RespProcess(p, Integer.parseInt(m.group(1)), log);
      }
    }
    p.waitFor(10, TimeUnit.SECONDS);
    Files.write(log, seen, StandardCharsets.UTF_8);
    throw new IOException("pagemark resp did not start (exit code " + (p.isAlive() ? "none" : p.exitValue())
        + "): " + String.join("\n", seen));
  }

  private static void copy(BufferedReader r, Path log) {
    try (var w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) {
        w.write(line);
        w.newLine();
        w.flush();
      }
    } catch (IOException e) {
      // the process ended
    }
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  /** A memory field of the server process's {@code /proc/PID/status}, in bytes. */
  long memory(String field) {
    return ProcStatus.of(process.pid(), field) * 1024;
  }

  /** Kills the server at once (SIGKILL) and waits until it is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new IllegalStateException("pagemark resp did not stop within 30 s of SIGTERM; its log: " + log);
    }
  }
}
