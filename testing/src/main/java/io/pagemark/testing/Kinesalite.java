package io.pagemark.testing;

import io.pagemark.dynamo.DynamoConnection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ResourceInUseException;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/**
 * kinesalite (a local Kinesis API from npm) in a process of its own: in memory, on a loopback port, streams created,
 * updated and deleted at once. On first use it installs {@code kinesalite@3.3.3} with {@code npm ci} into its home
 * folder ({@code .pagemark/node} of the repository unless {@value #HOME_PROPERTY} says otherwise), from the package
 * lock shipped with this class. Needs {@code node} and {@code npm} on the PATH; fails with what to do when they are
 * missing. A client that disconnects in the middle of a request no longer ends the server (see
 * {@code kinesalite/keep-serving.js}). Closing it stops the process.
 */
public final class Kinesalite extends ProcessService {
  /** System property (or environment variable PAGEMARK_KINESALITE_HOME) naming the npm install folder. */
  public static final String HOME_PROPERTY = "pagemark.kinesalite.home";
  static final String VERSION = "3.3.3";
  /** Our preload script: a client's aborted request ends that request, not the server. */
  static final String KEEP_SERVING = "keep-serving.js";
  /**
   * Shards all streams may hold together. kinesalite's default, 10, is the account limit of real Kinesis; a JVM's
   * tests share one kinesalite and create a stream or more each, and would run into it.
   */
  static final int SHARD_LIMIT = 1000;


  private Kinesalite(Process process, int port, Path log, boolean deleteLog) {
    super(process, port, log, deleteLog);
  }

  /**
   * Installs kinesalite if needed, starts it on a free port and waits until it answers; throws with its log's tail if
   * not. Its log is a temporary file, deleted when it is closed.
   */
  public static Kinesalite start() throws IOException {
    return start(0, Files.createTempFile("kinesalite-", ".log"), true);
  }

  /** As {@link #start()}, on {@code port} (0: a free one), logging to {@code log}, which is kept. */
  public static Kinesalite start(int port, Path log) throws IOException {
    return start(port, log, false);
  }

  private static Kinesalite start(int port, Path log, boolean deleteLog) throws IOException {
    Path home = home();
    Path cli = install(home);
    Path keepServing = keepServing(home);
    if (port == 0) {
      port = LocalProcess.freePort();
    }
    Process p;
    try {
      p = new ProcessBuilder(
              "node", "--require", keepServing.toString(), cli.toString(), "--port", Integer.toString(port),
              "--createStreamMs", "0", "--deleteStreamMs", "0", "--updateStreamMs", "0",
              "--shardLimit", Integer.toString(SHARD_LIMIT))
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .start();
    } catch (IOException e) {
      throw new IOException("cannot run node to start kinesalite (" + e.getMessage() + "); install Node.js 18+", e);
    }
    Kinesalite k = new Kinesalite(p, port, log, deleteLog);
    k.awaitReady(Duration.ofSeconds(30));
    return k;
  }

  @Override
  public String name() {
    return "kinesalite";
  }

  @Override
  public void ping() throws IOException {
    try (KinesisClient c = client(PING_TIMEOUT)) {
      c.listStreams(b -> b.limit(1));
    } catch (RuntimeException e) {
      throw new IOException("ListStreams failed: " + e.getMessage(), e);
    }
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
    cborOff();
    return DynamoConnection.configure(KinesisClient.builder(), endpoint(), region()).build();
  }

  private KinesisClient client(Duration timeout) {
    cborOff();
    return DynamoConnection.configure(KinesisClient.builder(), endpoint(), region())
        .overrideConfiguration(o -> o.apiCallTimeout(timeout).retryPolicy(RetryPolicy.none())).build();
  }

  private static void cborOff() {
    if (System.getProperty("aws.cborEnabled") == null) {
      System.setProperty("aws.cborEnabled", "false");
    }
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
            throw new IOException("kinesalite/" + f + " is missing from the classpath (build testing again)");
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

  /** The npm install folder: the property, the environment variable, else the repository's .pagemark/node. */
  static Path home() throws IOException {
    String h = System.getProperty(HOME_PROPERTY, System.getenv("PAGEMARK_KINESALITE_HOME"));
    return h != null ? Path.of(h) : LocalProcess.repoRoot().resolve(".pagemark").resolve("node");
  }

  /**
   * Writes the preload script into {@code home} (replacing it atomically, since another JVM may be starting
   * kinesalite from it) and returns its path.
   */
  static Path keepServing(Path home) throws IOException {
    Path script = home.resolve(KEEP_SERVING);
    byte[] text;
    try (InputStream in = Kinesalite.class.getResourceAsStream("kinesalite/" + KEEP_SERVING)) {
      if (in == null) {
        throw new IOException("kinesalite/" + KEEP_SERVING + " is missing from the classpath (build testing again)");
      }
      text = in.readAllBytes();
    }
    if (Files.isRegularFile(script) && java.util.Arrays.equals(Files.readAllBytes(script), text)) {
      return script;
    }
    Path tmp = Files.createTempFile(home, KEEP_SERVING, ".tmp");
    Files.write(tmp, text);
    Files.move(tmp, script, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return script;
  }

  private static String tail(Path file) {
    return LocalProcess.tail(file, 20);
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

}
