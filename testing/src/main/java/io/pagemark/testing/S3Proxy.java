package io.pagemark.testing;

import io.pagemark.format.s3.S3Location;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * s3proxy (a real S3 API, tested upstream against Ceph's s3-tests) in a JVM of its own, on a free loopback port,
 * storing objects in a temporary folder (its filesystem backend), with authorization off. Its jar comes from the
 * build's {@code testing/s3proxy/target}. If it cannot start, {@link #start()} throws with its log's tail (tests and
 * benchmarks fail, they never skip). Closing it stops the process and removes the folder.
 */
public final class S3Proxy implements AutoCloseable {
  /** System property (or environment variable PAGEMARK_S3PROXY_HOME) naming the folder with s3proxy.jar. */
  public static final String HOME_PROPERTY = "pagemark.s3proxy.home";

  private final Process process;
  private final String endpoint;
  private final Path dir;
  private final Path log;

  private S3Proxy(Process process, String endpoint, Path dir, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.dir = dir;
    this.log = log;
  }

  /** Starts s3proxy and waits until it answers; throws with its log's tail if it does not. */
  public static S3Proxy start() throws IOException {
    Path jar = home().resolve("s3proxy.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IOException("s3proxy is not built at " + jar + " (run: mvn -pl testing/s3proxy package)");
    }
    int port = LocalProcess.freePort();
    Path dir = Files.createTempDirectory("pagemark-s3proxy");
    Path data = Files.createDirectory(dir.resolve("data"));
    String endpoint = "http://127.0.0.1:" + port;
    Path properties = dir.resolve("s3proxy.properties");
    Files.write(properties, List.of(
        "s3proxy.endpoint=" + endpoint,
        "s3proxy.authorization=none",
        "jclouds.provider=filesystem",
        "jclouds.identity=local",
        "jclouds.credential=local",
        "jclouds.filesystem.basedir=" + data));
    Path log = dir.resolve("s3proxy.log");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-jar", jar.toString(), "--properties", properties.toString())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    S3Proxy proxy = new S3Proxy(p, endpoint, dir, log);
    proxy.awaitReady(Duration.ofSeconds(60));
    return proxy;
  }

  /** The endpoint URL, an IP literal ({@code http://127.0.0.1:PORT}). */
  public String endpoint() {
    return endpoint;
  }

  /** A new client of this s3proxy (path-style addressing); the caller closes it. */
  public S3Client client() {
    return new S3Location("pagemark-probe", "", endpoint, null).client();
  }

  /** Creates a bucket and returns its name. */
  public String createBucket(String name) {
    try (S3Client c = client()) {
      c.createBucket(b -> b.bucket(name));
    }
    return name;
  }

  /** The {@code --index}/{@code --output} value of an index under a bucket's prefix, endpoint included. */
  public String spec(String bucket, String prefix) {
    return new S3Location(bucket, prefix, endpoint, null).spec();
  }

  private void awaitReady(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    try (S3Client c = client()) {
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IOException("s3proxy exited with code " + process.exitValue() + ":\n" + tail());
        }
        try {
          c.listBuckets();
          return;
        } catch (RuntimeException e) {
          last = e;
        }
        try {
          process.waitFor(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    close();
    throw new IOException("s3proxy did not answer at " + endpoint + " within " + timeout.toSeconds() + " s ("
        + (last == null ? "interrupted" : last.getMessage()) + "):\n" + tail());
  }

  private String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  static Path home() {
    String h = System.getProperty(HOME_PROPERTY, System.getenv("PAGEMARK_S3PROXY_HOME"));
    if (h != null) {
      return Path.of(h);
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path t = d.resolve("testing").resolve("s3proxy").resolve("target");
      if (Files.isDirectory(t)) {
        return t;
      }
    }
    return Path.of("testing", "s3proxy", "target");
  }

  @Override
  public void close() {
    LocalProcess.stop(process);
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // a leftover temp folder is harmless
    }
  }
}
