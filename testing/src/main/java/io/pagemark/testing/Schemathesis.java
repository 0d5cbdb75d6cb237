package io.pagemark.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Schemathesis (property-based testing of an API from its OpenAPI description), from PyPI, in a virtualenv of its
 * own under {@code ~/.cache/pagemark}, created with {@code python3 -m venv} and pip on first use (about a minute).
 * When it cannot be installed, {@link #executable()} throws with pip's output: tests fail, they never skip.
 */
public final class Schemathesis {
  /** The version the tests were written against (its CLI's options changed between major versions). */
  public static final String VERSION = "4.32.5";

  private Schemathesis() {}

  /** The {@code st} command of the virtualenv, installing it first when missing. */
  public static synchronized Path executable() throws IOException {
    Path venv = Path.of(System.getProperty("user.home"), ".cache", "pagemark", "schemathesis-" + VERSION);
    Path st = venv.resolve("bin").resolve("st");
    // Written last: a venv without it is a broken install (interrupted, or pip failed) and is made again.
    Path complete = venv.resolve(".pagemark-complete");
    if (Files.isExecutable(st) && Files.exists(complete)) {
      return st;
    }
    Path python = DebianPackages.which("python3");
    if (python == null) {
      python = DebianPackages.ensure("python3", "python3", "python3-venv");
    }
    deleteTree(venv);
    Files.createDirectories(venv.getParent());
    Path log = Files.createTempFile("pagemark-schemathesis-", ".log");
    run(log, List.of(python.toString(), "-m", "venv", venv.toString()));
    run(log, List.of(venv.resolve("bin").resolve("pip").toString(), "install", "-q", "--disable-pip-version-check",
        "schemathesis==" + VERSION));
    if (!Files.isExecutable(st)) {
      throw new IOException("pip installed schemathesis " + VERSION + " but " + st + " is missing; see " + log);
    }
    Files.writeString(complete, VERSION + "\n");
    return st;
  }

  private static void run(Path log, List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish within 10 minutes; see " + log);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while installing schemathesis", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException("installing schemathesis " + VERSION + " from PyPI failed (" + String.join(" ", cmd)
          + ", exit code " + p.exitValue() + "):\n" + LocalProcess.tail(log, 30));
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    }
  }
}
