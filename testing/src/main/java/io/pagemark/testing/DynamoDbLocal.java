package io.pagemark.testing;

import io.pagemark.dynamo.DynamoConnection;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * DynamoDB Local in a JVM of its own (its AWS SDK clashes with Beam's), in memory, on a loopback port, with
 * telemetry off. Its jars come from the build's {@code testing/dynamodb-local/target}. Closing it stops the process;
 * everything it held is gone with it.
 */
public final class DynamoDbLocal extends ProcessService {
  /** System property (or environment variable PAGEMARK_DYNAMODB_LOCAL) naming the folder with lib/ and native/. */
  public static final String HOME_PROPERTY = "pagemark.dynamodbLocal.home";


  private DynamoDbLocal(Process process, int port, Path log, boolean deleteLog) {
    super(process, port, log, deleteLog);
  }

  /**
   * Starts DynamoDB Local on a free port and waits until it answers; throws with its log's tail if it does not. Its
   * log is a temporary file, deleted when it is closed.
   */
  public static DynamoDbLocal start() throws IOException {
    return start(0, Files.createTempFile("dynamodb-local-", ".log"), true);
  }

  /** As {@link #start()}, on {@code port} (0: a free one), logging to {@code log}, which is kept. */
  public static DynamoDbLocal start(int port, Path log) throws IOException {
    return start(port, log, false);
  }

  private static DynamoDbLocal start(int port, Path log, boolean deleteLog) throws IOException {
    Path home = home();
    Path lib = home.resolve("lib");
    Path nativeDir = home.resolve("native");
    if (!Files.isDirectory(lib) || !Files.isRegularFile(nativeDir.resolve("libsqlite4java-linux-amd64.so"))) {
      throw new IOException(
          "DynamoDB Local is not built at " + home + " (run: mvn -pl testing/dynamodb-local package)");
    }
    if (port == 0) {
      port = LocalProcess.freePort();
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.add("-Djava.library.path=" + nativeDir);
    cmd.add("-cp");
    cmd.add(lib + File.separator + "*");
    cmd.add("com.amazonaws.services.dynamodbv2.local.main.ServerRunner");
    cmd.add("-inMemory");
    cmd.add("-port");
    cmd.add(Integer.toString(port));
    cmd.add("-disableTelemetry");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    DynamoDbLocal local = new DynamoDbLocal(p, port, log, deleteLog);
    local.awaitReady(Duration.ofSeconds(60));
    return local;
  }

  @Override
  public String name() {
    return "DynamoDB Local";
  }

  @Override
  public void ping() throws IOException {
    try (DynamoDbClient c = DynamoConnection.configure(DynamoDbClient.builder(), endpoint(),
            DynamoConnection.DEFAULT_REGION)
        .overrideConfiguration(o -> o.apiCallTimeout(PING_TIMEOUT).retryPolicy(RetryPolicy.none())).build()) {
      c.listTables(b -> b.limit(1));
    } catch (RuntimeException e) {
      throw new IOException("ListTables failed: " + e.getMessage(), e);
    }
  }

  public DynamoConnection connection() {
    return new DynamoConnection(endpoint(), DynamoConnection.DEFAULT_REGION);
  }

  public DynamoDbClient client() {
    return connection().client();
  }

  /** The folder with lib/ and native/: the property, the environment variable, else the repository's build. */
  static Path home() throws IOException {
    String h = System.getProperty(HOME_PROPERTY, System.getenv("PAGEMARK_DYNAMODB_LOCAL"));
    if (h != null) {
      return Path.of(h);
    }
    return LocalProcess.repoRoot().resolve("testing").resolve("dynamodb-local").resolve("target");
  }

}
