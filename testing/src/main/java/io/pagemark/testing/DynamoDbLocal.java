package io.pagemark.testing;

import io.pagemark.dynamo.DynamoConnection;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * DynamoDB Local in a JVM of its own (its AWS SDK clashes with Beam's), in memory, on a free loopback port, with
 * telemetry off. Its jars come from the build's {@code testing/dynamodb-local/target}. Closing it stops the process.
 */
public final class DynamoDbLocal implements AutoCloseable {
  /** System property (or environment variable PAGEMARK_DYNAMODB_LOCAL) naming the folder with lib/ and native/. */
  public static final String HOME_PROPERTY = "pagemark.dynamodbLocal.home";

  private final Process process;
  private final String endpoint;
  private final Path log;

  private DynamoDbLocal(Process process, String endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  /** Starts DynamoDB Local and waits until it answers; throws with its log's tail if it does not. */
  public static DynamoDbLocal start() throws IOException {
    Path home = home();
    Path lib = home.resolve("lib");
    Path nativeDir = home.resolve("native");
    if (!Files.isDirectory(lib) || !Files.isRegularFile(nativeDir.resolve("libsqlite4java-linux-amd64.so"))) {
      throw new IOException(
          "DynamoDB Local is not built at " + home + " (run: mvn -pl testing/dynamodb-local package)");
    }
    int port = LocalProcess.freePort();
    Path log = Files.createTempFile("dynamodb-local-", ".log");
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
    DynamoDbLocal local = new DynamoDbLocal(p, "http://127.0.0.1:" + port, log);
    local.awaitReady(Duration.ofSeconds(60));
    return local;
  }

  public String endpoint() {
    return endpoint;
  }

  public DynamoConnection connection() {
    return new DynamoConnection(endpoint, DynamoConnection.DEFAULT_REGION);
  }

  public DynamoDbClient client() {
    return connection().client();
  }

  private void awaitReady(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    try (DynamoDbClient c = client()) {
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IOException("DynamoDB Local exited with code " + process.exitValue() + ":\n" + tail());
        }
        try {
          c.listTables();
          return;
        } catch (RuntimeException e) {
          last = e;
        }
        try {
          process.waitFor(200, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    close();
    throw new IOException(
        "DynamoDB Local did not answer at " + endpoint + " within " + timeout.toSeconds() + " s ("
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
    String h = System.getProperty(HOME_PROPERTY, System.getenv("PAGEMARK_DYNAMODB_LOCAL"));
    if (h != null) {
      return Path.of(h);
    }
    return Path.of("pipelines", "dynamodb-local", "target");
  }

  @Override
  public void close() {
    LocalProcess.stop(process);
    try {
      Files.deleteIfExists(log);
    } catch (IOException ignored) {
      // a leftover temp log is harmless
    }
  }
}
