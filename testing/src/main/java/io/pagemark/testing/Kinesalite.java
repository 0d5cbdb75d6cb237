package io.pagemark.testing;

import io.pagemark.dynamo.DynamoConnection;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ResourceInUseException;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * kinesalite (a local Kinesis API from npm) in a process of its own: in memory, on a free loopback port, streams
 * created, updated and deleted at once. On first use it installs {@code kinesalite@3.3.3} with {@code npm ci} into its
 * home folder ({@code .pagemark/node} unless {@value #HOME_PROPERTY} says otherwise), from the package lock shipped with
 * this class. Needs {@code node} and {@code npm} on the PATH; fails with what to do when they are missing. Closing it
 * stops the process.
 */
public final class Kinesalite implements AutoCloseable {
  /** System property (or environment variable PAGEMARK_KINESALITE_HOME) naming the npm install folder. */
  public static final String HOME_PROPERTY = "pagemark.kinesalite.home";
  static final String VERSION = "3.3.3";

  private final Process process;
  private final String endpoint;
  private final Path log;

  private Kinesalite(Process process, String endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  /** Installs kinesalite if needed, starts it and waits until it answers; throws with its log's tail if not. */
  public static Kinesalite start() throws IOException {
    Path cli = install(home());
    int port = LocalProcess.freePort();
    Path log = Files.createTempFile("kinesalite-", ".log");
    Process p =
        new ProcessBuilder(
                "node", cli.toString(), "--port", Integer.toString(port), "--createStreamMs", "0",
                "--deleteStreamMs", "0", "--updateStreamMs", "0")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Kinesalite k = new Kinesalite(p, "http://127.0.0.1:" + port, log);
    k.awaitReady(Duration.ofSeconds(30));
    return k;
  }

  public String endpoint() {
    return endpoint;
  }

  /** The region clients should name (kinesalite accepts any). */
  public String region() {
    return DynamoConnection.DEFAULT_REGION;
  }

  /**
   * A new client of this kinesalite; the caller closes it. The JVM's AWS SDK gets CBOR turned off first (unless the
   * property {@code aws.cborEnabled} is set): kinesalite's CBOR timestamps do not parse.
   */
  public KinesisClient client() {
    if (System.getProperty("aws.cborEnabled") == null) {
      System.setProperty("aws.cborEnabled", "false");
    }
    return DynamoConnection.configure(KinesisClient.builder(), endpoint, region()).build();
  }

  /** Creates a stream and waits until it is ACTIVE. */
  public void createStream(String name, int shards) {
    try (KinesisClient c = client()) {
      try {
        c.createStream(b -> b.streamName(name).shardCount(shards));
      } catch (ResourceInUseException e) {
        // already there
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (c.describeStream(b -> b.streamName(name)).streamDescription().streamStatus() != StreamStatus.ACTIVE) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("stream " + name + " did not become ACTIVE within 30 s");
        }
        pause(50);
      }
    }
  }

  /** Every record of the stream, shard by shard from the oldest (a test's or benchmark's view of what arrived). */
  public List<Record> records(String stream) {
    List<Record> out = new java.util.ArrayList<>();
    try (KinesisClient c = client()) {
      for (Shard s : c.listShards(b -> b.streamName(stream)).shards()) {
        String it = c.getShardIterator(b -> b.streamName(stream).shardId(s.shardId())
            .shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator();
        while (it != null) {
          String from = it;
          GetRecordsResponse r = c.getRecords(b -> b.shardIterator(from).limit(10_000));
          out.addAll(r.records());
          it = r.records().isEmpty() ? null : r.nextShardIterator();
        }
      }
    }
    return out;
  }

  /** The latest arrival time of the stream's records; throws when it has none. */
  public java.time.Instant lastArrival(String stream) {
    return records(stream).stream().map(Record::approximateArrivalTimestamp).max(java.util.Comparator.naturalOrder())
        .orElseThrow(() -> new IllegalStateException("stream " + stream + " holds no record"));
  }

  /**
   * The folder with {@code node_modules/kinesalite}: installs it with {@code npm ci} when missing. A file lock keeps
   * two JVMs from installing at once; a marker file says the install finished.
   */
  @SuppressWarnings("try") // the lock is held by the try block, not used in it
  static Path install(Path home) throws IOException {
    Path cli = home.resolve("node_modules").resolve("kinesalite").resolve("cli.js");
    Path done = home.resolve(".installed-kinesalite-" + VERSION);
    if (Files.isRegularFile(done) && Files.isRegularFile(cli)) {
      return cli;
    }
    Files.createDirectories(home);
    try (FileChannel lockFile =
            FileChannel.open(home.resolve(".install.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = lockFile.lock()) {
      if (Files.isRegularFile(done) && Files.isRegularFile(cli)) {
        return cli;
      }
      for (String f : List.of("package.json", "package-lock.json")) {
        try (InputStream in = Kinesalite.class.getResourceAsStream("kinesalite/" + f)) {
          if (in == null) {
            throw new IOException("kinesalite/" + f + " is missing from the classpath (build pipelines again)");
          }
          Files.copy(in, home.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      Path npmLog = home.resolve("npm-install.log");
      Process npm;
      try {
        npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
            .directory(home.toFile())
            .redirectErrorStream(true)
            .redirectOutput(npmLog.toFile())
            .start();
      } catch (IOException e) {
        throw new IOException(
            "cannot run npm to install kinesalite (" + e.getMessage() + "); install Node.js 18+ with npm and retry", e);
      }
      try {
        if (!npm.waitFor(5, TimeUnit.MINUTES)) {
          npm.destroyForcibly();
          throw new IOException("npm ci did not finish within 5 minutes; see " + npmLog);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        npm.destroyForcibly();
        throw new IOException("interrupted while installing kinesalite", e);
      }
      if (npm.exitValue() != 0 || !Files.isRegularFile(cli)) {
        throw new IOException("npm ci failed to install kinesalite@" + VERSION + " into " + home + " (exit code "
            + npm.exitValue() + "):\n" + tail(npmLog));
      }
      Files.writeString(done, VERSION + "\n");
      return cli;
    }
  }

  private void awaitReady(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    RuntimeException last = null;
    try (KinesisClient c = client()) {
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IOException("kinesalite exited with code " + process.exitValue() + ":\n" + tail(log));
        }
        try {
          c.listStreams();
          return;
        } catch (RuntimeException e) {
          last = e;
        }
        pause(100);
      }
    }
    close();
    throw new IOException("kinesalite did not answer at " + endpoint + " within " + timeout.toSeconds() + " s ("
        + (last == null ? "interrupted" : last.getMessage()) + "):\n" + tail(log));
  }

  static Path home() {
    String h = System.getProperty(HOME_PROPERTY, System.getenv("PAGEMARK_KINESALITE_HOME"));
    return h != null ? Path.of(h) : Path.of(".pagemark", "node");
  }

  private static String tail(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
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
