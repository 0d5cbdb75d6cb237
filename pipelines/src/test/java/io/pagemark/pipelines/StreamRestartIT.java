package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.stream.IndexCommit;
import io.pagemark.stream.Wal;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.model.Record;

/**
 * Failures of the stream and the commit: {@code pagemark stream} runs as a process of its own and is killed (SIGKILL)
 * at a random moment while changes flow, then restarted (it resumes from the WAL's resume position) and stopped with
 * SIGTERM; the commit is crashed at a random step and run again. Every page must still be DynamoDB's.
 */
class StreamRestartIT {
  @Test
  void aKilledStreamResumesAndACrashedCommitFinishesWithoutLosingAChange(@TempDir Path dir) throws Exception {
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    Random random = new Random(seed);
    DynamoDbLocal local = SharedDynamoDbLocal.get();
    Kinesalite kinesalite = SharedKinesalite.get();
    String table = "restarts";
    Path index = dir.resolve("index");
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 600, seed);
      writer.write(300);
      BackfillIT.Result backfill = BackfillIT.backfill(local, "--table=" + table, "--gsi=" + StreamTable.GSI,
          "--output=" + index, "--segments=2");
      assertThat(backfill.err(), backfill.code(), is(0));

      try (Relay relay = Relay.start(local.connection(), table, kinesalite.connection(), table,
          new Relay.Options(0.1, 30, seed))) {
        Process first = startStream(local, kinesalite, table, index, dir.resolve("first.log"));
        StreamIT.awaitTrue(Duration.ofSeconds(120), () -> segments(index) > 0 || !first.isAlive(),
            "the first stream wrote no WAL segment");
        CompletableFuture<Void> writes = CompletableFuture.runAsync(() -> writer.write(1500));
        Thread.sleep(500 + random.nextInt(3000)); // a random moment while changes flow
        assertThat(log(dir.resolve("first.log")), first.isAlive(), is(true));
        first.destroyForcibly();
        assertThat(first.waitFor(30, TimeUnit.SECONDS), is(true));
        assertThat(first.exitValue(), not(is(0)));
        assertThat("the kill must come while writes go on (seed " + seed + ")", writes.isDone(), is(false));

        Process second = startStream(local, kinesalite, table, index, dir.resolve("second.log"));
        writes.get();
        relay.awaitIdle(Duration.ofSeconds(120));
        Instant lastArrival = lastArrival(kinesalite, table);
        Wal wal = new Wal(index);
        StreamIT.awaitTrue(Duration.ofSeconds(180), () -> {
          try {
            return wal.position().map(p -> p.isAfter(lastArrival)).orElse(false) || !second.isAlive();
          } catch (IOException e) {
            return false;
          }
        }, "the restarted stream did not get past the last record (" + lastArrival + ")");
        assertThat(log(dir.resolve("second.log")), second.isAlive(), is(true));
        second.destroy(); // SIGTERM
        assertThat(second.waitFor(60, TimeUnit.SECONDS), is(true));
        String secondLog = log(dir.resolve("second.log"));
        assertThat(secondLog, second.exitValue(), is(0));
        assertThat(secondLog, containsString("pagemark stream: stopped after"));
      }

      AtomicInteger steps = new AtomicInteger();
      int crashAt = 1 + random.nextInt(12);
      try {
        IndexCommit.of(index).withTieResolution(local.connection()).withSteps(step -> {
          if (steps.incrementAndGet() == crashAt) {
            throw new IllegalStateException("simulated crash at " + step);
          }
        }).run();
      } catch (IllegalStateException e) {
        assertThat(e.getMessage(), containsString("simulated crash"));
      }
      BackfillIT.Result commit = BackfillIT.cli("commit", "--index=" + index, "--dynamoEndpoint=" + local.endpoint());
      assertThat(commit.err(), commit.code(), is(0));
      assertThat(segments(index), is(0L));
      try {
        StreamTable.assertEveryPageIsDynamoDbsPage(c, table, index, 9);
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + ", commit crashed at step " + crashAt + ": " + e.getMessage(), e);
      }
    }
  }

  /** {@code pagemark stream} in a JVM of its own, output to {@code log}. */
  static Process startStream(DynamoDbLocal local, Kinesalite kinesalite, String table, Path index, Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx768m");
    cmd.add("-Daws.cborEnabled=false");
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of("stream", "--stream=" + table, "--kinesisEndpoint=" + kinesalite.endpoint(),
        "--output=" + index, "--table=" + table, "--gsi=" + StreamTable.GSI,
        "--dynamoEndpoint=" + local.endpoint(), "--flushMillis=500", "--watermarkIdleSeconds=2",
        "--progressSeconds=2"));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  static long segments(Path index) {
    Path groups = index.resolve(Wal.DIR).resolve("groups");
    if (!Files.isDirectory(groups)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(groups)) {
      return s.filter(p -> p.getFileName().toString().endsWith(".wal")).count();
    } catch (IOException | java.io.UncheckedIOException e) {
      return 0; // a segment was renamed or deleted while walking
    }
  }

  static Instant lastArrival(Kinesalite k, String stream) {
    Instant last = Instant.EPOCH;
    for (Record r : RelayIT.readAll(k, stream)) {
      if (r.approximateArrivalTimestamp().isAfter(last)) {
        last = r.approximateArrivalTimestamp();
      }
    }
    assertThat(last, greaterThan(Instant.EPOCH));
    return last;
  }

  static String log(Path file) throws IOException {
    return file.toFile().exists() ? Files.readString(file) : "(no log at " + file + File.separator + ")";
  }
}
