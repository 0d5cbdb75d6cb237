package io.pagemark.testing;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.s3.S3Location;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * s3proxy (a real S3 API, tested upstream against Ceph's s3-tests) in a JVM of its own on a loopback port, storing
 * objects in a temporary folder (its filesystem backend), with authorization off. Its jar comes from the build's
 * {@code testing/s3proxy/target} (Maven copies it there; it needs nothing but this JVM's Java, so there is nothing to
 * install). If it cannot start, {@link #start()} throws with its log's tail (tests and benchmarks fail, they never
 * skip). Closing it stops the process and removes its objects; a restart starts empty.
 */
public final class S3Proxy extends ProcessService {
  /** System property (or environment variable PAGEMARK_S3PROXY_HOME) naming the folder with s3proxy.jar. */
  public static final String HOME_PROPERTY = "pagemark.s3proxy.home";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;

  private S3Proxy(Process process, int port, Path dir, Path log, boolean deleteLog) {
    super(process, port, log, deleteLog);
    this.dir = dir;
  }

  /** Starts s3proxy on a free port and waits until it answers; its log is deleted with it when it is closed. */
  public static S3Proxy start() throws IOException {
    return start(0, Files.createTempFile("s3proxy-", ".log"), true);
  }

  /** As {@link #start()}, on {@code port} (0: a free one), logging to {@code log}, which is kept. */
  public static S3Proxy start(int port, Path log) throws IOException {
    return start(port, log, false, null);
  }

  /**
   * An s3proxy that checks signatures (AWS v2 or v4) and accepts only {@code identity}'s: a store that denies the
   * credentials the tests' clients send. Logs and objects are removed when it is closed.
   */
  public static S3Proxy startRequiring(String identity, String credential) throws IOException {
    return start(0, Files.createTempFile("s3proxy-", ".log"), true, List.of("s3proxy.authorization=aws-v2-or-v4",
        "s3proxy.identity=" + identity, "s3proxy.credential=" + credential));
  }

  private static S3Proxy start(int port, Path log, boolean deleteLog) throws IOException {
    return start(port, log, deleteLog, null);
  }

  private static S3Proxy start(int port, Path log, boolean deleteLog, List<String> authorization)
      throws IOException {
    Path jar = home().resolve("s3proxy.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IOException("s3proxy is not built at " + jar + " (run: mvn -pl testing/s3proxy package)");
    }
    if (port == 0) {
      port = LocalProcess.freePort();
    }
    Path dir = Files.createTempDirectory("pagemark-s3proxy");
    Path data = Files.createDirectory(dir.resolve("data"));
    Path properties = dir.resolve("s3proxy.properties");
    Files.write(properties, List.of(
        "s3proxy.endpoint=http://127.0.0.1:" + port,
        "jclouds.provider=filesystem",
        "jclouds.identity=local",
        "jclouds.credential=local",
        "jclouds.filesystem.basedir=" + data));
    Files.write(properties, authorization == null ? List.of("s3proxy.authorization=none") : authorization,
        java.nio.file.StandardOpenOption.APPEND);
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-jar", jar.toString(), "--properties", properties.toString())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    S3Proxy proxy = new S3Proxy(p, port, dir, log, deleteLog);
    proxy.awaitReady(START_TIMEOUT);
    return proxy;
  }

  @Override
  public String name() {
    return "s3proxy";
  }

  /** The endpoint URL, an IP literal ({@code http://127.0.0.1:PORT}), so that the SDK addresses it path-style. */
  @Override
  public String endpoint() {
    return super.endpoint();
  }

  @Override
  public void ping() throws IOException {
    try (S3Client c = client(PING_TIMEOUT)) {
      c.listBuckets();
    } catch (S3Exception answered) {
      // an error answer is an answer: a proxy that checks signatures denies the tests' dummy credentials
    } catch (RuntimeException e) {
      throw new IOException("ListBuckets failed: " + e.getMessage(), e);
    }
  }

  /** A new client of this s3proxy (path-style addressing); the caller closes it. */
  public S3Client client() {
    return new S3Location("pagemark-probe", "", endpoint(), null).client();
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
    return new S3Location(bucket, prefix, endpoint(), null).spec();
  }

  /** A client that gives up after {@code timeout}, without retries: a ping must not hide a dead server. */
  private S3Client client(Duration timeout) {
    return DynamoConnection.configure(S3Client.builder(), endpoint(), DynamoConnection.DEFAULT_REGION)
        .forcePathStyle(true)
        .overrideConfiguration(o -> o.apiCallTimeout(timeout).retryPolicy(RetryPolicy.none()))
        .build();
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

  /** Removes s3proxy's objects: a restart starts empty. */
  @Override
  protected void cleanUp() throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
