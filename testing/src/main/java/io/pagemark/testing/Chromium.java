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
 * chromium-driver, installed with apt-get when missing and running as root, see {@link DebianPackages}), the driver in
 * its own process on a loopback port with its log in a file. A WebDriver client (Selenium's {@code RemoteWebDriver},
 * say) connects to {@link #driverUrl()} and starts the browser with {@link #binary()} and {@link #arguments}. If the
 * driver cannot start, {@link #start} throws with its log (tests fail, they never skip). Tests get one shared driver
 * through {@link ChromiumExtension}.
 */
public final class Chromium implements LocalService {
  private static final long START_TIMEOUT_MILLIS = 20_000;
  private static final Duration PING_TIMEOUT = Duration.ofSeconds(10);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Path binary;
  private final Process driver;
  private final int port;
  private final Path dir;
  private final Path log;

  private Chromium(Path binary, Process driver, int port, Path dir, Path log) {
    this.binary = binary;
    this.driver = driver;
    this.port = port;
    this.dir = dir;
    this.log = log;
  }

  /** Installs Chromium and chromedriver when missing, and starts chromedriver on a free port; its log is temporary. */
  public static Chromium start() throws IOException {
    Path dir = Files.createTempDirectory("pagemark-chromium");
    return start(0, dir, dir.resolve("chromedriver.log"));
  }

  /** As {@link #start()}, on {@code port} (0: a free one), the driver's output in {@code log}, which is kept. */
  public static Chromium start(int port, Path log) throws IOException {
    return start(port, Files.createTempDirectory("pagemark-chromium"), log);
  }

  private static Chromium start(int port, Path dir, Path log) throws IOException {
    Path binary = DebianPackages.ensure("chromium", "chromium", "chromium-driver");
    Path chromedriver = DebianPackages.ensure("chromedriver", "chromium-driver");
    int p = port == 0 ? LocalProcess.freePort() : port;
    // its log file and what it prints before opening it (a bad flag, a taken port) go to the same file
    Process process = new ProcessBuilder(chromedriver.toString(), "--port=" + p, "--allowed-ips=127.0.0.1",
        "--append-log", "--log-path=" + log).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    Chromium c = new Chromium(binary, process, p, dir, log);
    c.awaitReady();
    return c;
  }

  private void awaitReady() throws IOException {
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
    String last = "no answer";
    while (System.currentTimeMillis() < deadline) {
      if (!driver.isAlive()) {
        // the message first: close() removes the temporary folder, which may hold the log
        IOException e = new IOException("chromedriver " + exitStatus() + " on port " + port + ":\n"
            + LocalProcess.tail(log, 20));
        close();
        throw e;
      }
      try {
        ping();
        return;
      } catch (IOException e) {
        last = e.getMessage();
      }
      try {
        driver.waitFor(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    IOException e = new IOException("chromedriver on port " + port + " was not ready within " + START_TIMEOUT_MILLIS
        + " ms (" + last + "):\n" + LocalProcess.tail(log, 20));
    close();
    throw e;
  }

  @Override
  public String name() {
    return "chromedriver";
  }

  @Override
  public String endpoint() {
    return driverUrl();
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public boolean isAlive() {
    return driver.isAlive();
  }

  @Override
  public String exitStatus() {
    return LocalProcess.exitStatus(driver);
  }

  /** {@code GET /status}, which answers {@code "ready": true} while the driver can start browsers. */
  @Override
  public void ping() throws IOException {
    HttpResponse<String> r;
    try {
      r = HTTP.send(HttpRequest.newBuilder(URI.create(driverUrl() + "status")).timeout(PING_TIMEOUT).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while asking chromedriver for its status", e);
    }
    if (r.statusCode() != 200 || !r.body().replace(" ", "").contains("\"ready\":true")) {
      throw new IOException("GET /status answered " + r.statusCode() + " " + r.body());
    }
  }

  @Override
  public List<Path> logs() {
    return List.of(log);
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

  @Override
  public String toString() {
    return name() + " at " + driverUrl();
  }

  /** A directory for a browser's profile, deleted with this launcher's files. */
  public Path newProfile() throws IOException {
    return Files.createTempDirectory(dir, "profile");
  }

  /** Stops the driver (and its browsers) and removes the profiles; a log given to {@link #start(int, Path)} stays. */
  @Override
  public void close() {
    if (driver.isAlive()) {
      LocalProcess.stop(driver);
    }
    try (var files = Files.walk(dir)) {
      for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      // a browser that outlived the driver may still hold its profile; the temp directory is left behind
    }
  }
}
