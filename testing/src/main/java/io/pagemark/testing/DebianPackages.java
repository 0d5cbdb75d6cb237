package io.pagemark.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Finds a command on {@code PATH} and installs the Debian packages that bring it when it is missing: with
 * {@code apt-get} (waiting up to 5 minutes for the package lock, which parallel test runs share) when running as
 * root, as {@code bin/ensure-redis} does. Never skips: when the command cannot be had, it throws with what to do.
 */
public final class DebianPackages {
  private DebianPackages() {}

  /** The path of {@code command}, installing {@code packages} first when it is missing. */
  public static synchronized Path ensure(String command, String... packages) throws IOException {
    Path found = which(command);
    if (found != null) {
      return found;
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    if (!root || which("apt-get") == null) {
      throw new IOException(command + " is not installed and this user cannot install it; install the Debian"
          + " package(s) " + String.join(" ", packages) + " (apt-get install " + String.join(" ", packages) + ")");
    }
    Path log = Files.createTempFile("pagemark-apt-", ".log");
    run(log, List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "update", "-qq"));
    List<String> install = new ArrayList<>(List.of("apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y",
        "-qq", "--no-install-recommends"));
    install.addAll(List.of(packages));
    run(log, install);
    found = which(command);
    if (found == null) {
      throw new IOException("apt-get installed " + String.join(" ", packages) + " but " + command
          + " is still not on PATH; see " + log);
    }
    return found;
  }

  /** The command's path on {@code PATH} (or in /usr/bin), or null. */
  public static Path which(String command) {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
    dirs.add("/usr/bin");
    for (String d : dirs) {
      if (d.isEmpty()) {
        continue;
      }
      Path p = Path.of(d, command);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  private static void run(Path log, List<String> cmd) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Process p = pb.start();
    try {
      if (!p.waitFor(15, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish within 15 minutes; see " + log);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while running " + String.join(" ", cmd), e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed with exit code " + p.exitValue() + ":\n"
          + LocalProcess.tail(log, 20));
    }
  }
}
