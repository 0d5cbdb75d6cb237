package io.pagemark.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Headless Chromium for browser tests: Debian's {@code chromium} and its {@code chromedriver} (packages chromium and
 * chromium-driver, installed with apt-get when missing, see {@link DebianPackages}), the driver in its own process on
 * a free loopback port with its log in a file. A WebDriver client (Selenium's {@code RemoteWebDriver}, say) connects
 * to {@link #driverUrl()} and starts the browser with {@link #binary()} and {@link #arguments}. If the driver cannot
 * start, {@link #start()} throws with its log (tests fail, they never skip).
 */
public final class Chromium implements AutoCloseable {
  private static final long START_TIMEOUT_MILLIS = 20_000;

  private final Path binary;
  private final Process driver;
  private final int port;
  private final Path dir;

  private Chromium(Path binary, Process driver, int port, Path dir) {
    this.binary = binary;
    this.driver = driver;
    this.port = port;
    this.dir = dir;
  }

  /** Installs Chromium and chromedriver when missing, and starts chromedriver. */
  public static Chromium start() throws IOException {
    Path binary = DebianPackages.ensure("chromium", "chromium", "chromium-driver");
    Path chromedriver = DebianPackages.ensure("chromedriver", "chromium-driver");
    Path dir = Files.createTempDirectory("pagemark-chromium");
    int port = LocalProcess.freePort();
    Path log = dir.resolve("chromedriver.log");
    Process p = new ProcessBuilder(chromedriver.toString(), "--port=" + port, "--allowed-ips=127.0.0.1",
        "--log-path=" + log).redirectErrorStream(true).redirectOutput(dir.resolve("stdout").toFile()).start();
    Chromium c = new Chromium(binary, p, port, dir);
    c.awaitReady(log);
    return c;
  }

  private void awaitReady(Path log) throws IOException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
    String last = "no answer";
    while (System.currentTimeMillis() < deadline) {
      if (!driver.isAlive()) {
        throw new IOException("chromedriver exited with code " + driver.exitValue() + ":\n"
            + LocalProcess.tail(log, 20) + LocalProcess.tail(dir.resolve("stdout"), 20));
      }
      try {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(driverUrl() + "status")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200 && r.body().replace(" ", "").contains("\"ready\":true")) {
          return;
        }
        last = r.statusCode() + " " + r.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      try {
        driver.waitFor(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    LocalProcess.stop(driver);
    throw new IOException("chromedriver on port " + port + " was not ready within " + START_TIMEOUT_MILLIS + " ms ("
        + last + "):\n" + LocalProcess.tail(log, 20));
  }

  /** The WebDriver endpoint, such as {@code http://127.0.0.1:PORT/}. */
  public String driverUrl() {
    return "http://127.0.0.1:" + port + "/";
  }

  /** The Chromium executable. */
  public Path binary() {
    return binary;
  }

  /**
   * The flags a test browser needs here: headless, no sandbox (tests may run as root), nothing that reaches the
   * network on its own, and a fresh profile in {@code profile}.
   */
  public static List<String> arguments(Path profile) {
    return List.of("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1280,1000", "--user-data-dir=" + profile);
  }

  /** A directory for a browser's profile, deleted with this launcher's files. */
  public Path newProfile() throws IOException {
    return Files.createTempDirectory(dir, "profile");
  }

  @Override
  public void close() throws IOException {
    LocalProcess.stop(driver);
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      // a browser that outlived the driver may still hold its profile; the temp directory is left behind
    }
  }
}
