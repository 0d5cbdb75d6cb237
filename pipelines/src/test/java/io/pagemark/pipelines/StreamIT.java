package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.BuildInfo;
import io.pagemark.lookup.FileIndex;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The stream end to end against DynamoDB Local and kinesalite: random writes, relayed from DynamoDB Local's stream into
 * Kinesis with 10% of the records duplicated, the stream pipeline appending to the WAL while a backfill scans the
 * table, then commits: every page of every group must be DynamoDB's own page.
 */
class StreamIT {
  static final int PAGE = 7;

  @Test
  void aStreamStartedBeforeTheBackfillLosesAndDoublesNothingAndEveryPageIsDynamoDbsPage(@TempDir Path dir)
      throws Exception {
    DynamoDbLocal local = SharedDynamoDbLocal.get();
    Kinesalite kinesalite = SharedKinesalite.get();
    String table = "events";
    Path index = dir.resolve("index");
    kinesalite.createStream(table, 2);
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
    }
    try (DynamoDbClient c = local.client();
        Relay relay = Relay.start(local.connection(), table, kinesalite.connection(), table,
            new Relay.Options(0.1, 30, 11));
        StreamRun stream = StreamRun.start(streamOptions(local, kinesalite, table, index))) {
      // 5,000 random writes or more; the backfill scans the table while they go on
      StreamTable.Writer writer = new StreamTable.Writer(c, table, 1500, 17);
      writer.write(1500);
      CompletableFuture<BackfillIT.Result> backfill = CompletableFuture.supplyAsync(() -> BackfillIT.backfill(local,
          "--table=" + table, "--gsi=" + StreamTable.GSI, "--output=" + index, "--segments=2"));
      int duringBackfill = 0;
      while (!backfill.isDone() || writer.written() < 5000) {
        writer.write(50);
        duringBackfill += backfill.isDone() ? 0 : 50;
      }
      writer.write(300);
      assertThat(backfill.get().err(), backfill.get().code(), is(0));
      assertThat("writes while the backfill ran", duringBackfill, greaterThan(0));
      Map<StreamTable.Kind, Integer> kinds = writer.kinds();
      assertThat(kinds.get(StreamTable.Kind.MOVE_GROUP), greaterThan(300));
      assertThat(kinds.get(StreamTable.Kind.MOVE_SORT), greaterThan(300));

      relay.awaitIdle(Duration.ofSeconds(120));
      awaitCaughtUp(stream, relay);
      assertThat(relay.duplicated(), greaterThan(300L));
      Map<String, Long> counters = stream.counters();
      assertThat(counters.get("recordsRead"), is(relay.put()));
      assertThat(counters.getOrDefault("deadLetters", 0L), is(0L));

      BackfillIT.Result commit = BackfillIT.cli("commit", "--index=" + index, "--dynamoEndpoint=" + local.endpoint());
      assertThat(commit.err(), commit.code(), is(0));
      assertThat(commit.out(), containsString("pagemark commit: published build"));
      try (FileIndex idx = FileIndex.open(index)) {
        BuildInfo.Commit info = idx.info().commit();
        assertThat(info.applied(), greaterThan(1000L));
        assertThat("duplicates", info.stale(), greaterThan(relay.duplicated() / 2));
        assertThat(idx.info().counts().tieRuns(), greaterThan(10L));
      }
      StreamTable.assertEveryPageIsDynamoDbsPage(c, table, index, PAGE);

      // more writes, committed without DynamoDB: changed runs of equal sort keys are unknown, pages stay right
      writer.write(600);
      relay.awaitIdle(Duration.ofSeconds(120));
      awaitCaughtUp(stream, relay);
      commit = BackfillIT.cli("commit", "--index=" + index);
      assertThat(commit.err(), commit.code(), is(0));
      try (FileIndex idx = FileIndex.open(index)) {
        assertThat(idx.info().counts().tieRunsUnresolved(), greaterThan(0L));
      }
      StreamTable.assertEveryPageIsDynamoDbsPage(c, table, index, PAGE);
      BackfillIT.Result nothing = BackfillIT.cli("commit", "--index=" + index);
      assertThat(nothing.out(), containsString("nothing to commit"));
    }
  }

  static StreamOptions streamOptions(DynamoDbLocal local, Kinesalite kinesalite, String table, Path index) {
    return PipelineOptionsFactory.fromArgs(
            "--stream=" + table, "--kinesisEndpoint=" + kinesalite.endpoint(), "--output=" + index,
            "--table=" + table, "--gsi=" + StreamTable.GSI, "--dynamoEndpoint=" + local.endpoint(),
            "--flushMillis=500", "--watermarkIdleSeconds=2", "--from=trim_horizon")
        .as(StreamOptions.class);
  }

  /** Waits until the stream has read every record the relay put and made every change durable. */
  static void awaitCaughtUp(StreamRun stream, Relay relay) throws InterruptedException {
    awaitTrue(Duration.ofSeconds(180), () -> {
      Map<String, Long> m = stream.counters();
      return m.getOrDefault("recordsRead", 0L) >= relay.put()
          && m.getOrDefault("changesDurable", 0L).equals(m.getOrDefault("changes", 0L));
    }, "the stream did not catch up with the relay");
  }

  static void awaitTrue(Duration timeout, BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " within " + timeout.toSeconds() + " s");
      }
      Thread.sleep(100); // polling a condition with a deadline
    }
  }
}
