package io.pagemark.pipelines.catchup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.Main;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.wal.CatchUpWatermark;
import io.pagemark.wal.Wal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * {@code pagemark catch-up} against DynamoDB Local: a comments table with a time-bucket GSI and a grouping GSI is
 * backfilled, then written to in rounds (new comments, comments arriving late in an older bucket, duplicates); after
 * each round a catch-up with {@code --commit} runs, and every page of every group in both orders must be DynamoDB's
 * own page. One catch-up is killed (SIGKILL) while it appends: the watermark stays until a run finishes, and the next
 * run's replay changes nothing twice.
 */
@ExtendWith(DynamoDbLocalExtension.class)
class CatchUpIT {
  static final int PAGE = 7;
  static final String TABLE = "comments";

  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void killCatchUps() {
    processes.forEach(Process::destroyForcibly);
  }

  @Test
  void roundsOfWritesLateItemsDuplicatesAndAKilledRunEndInDynamoDbsPages(@TempDir Path dir, DynamoDbLocal local)
      throws Exception {
    long seed = Long.getLong("pagemark.test.seed", System.nanoTime());
    Path index = dir.resolve("index");
    try (DynamoDbClient c = local.client()) {
      CommentsTable.create(c, TABLE, ProjectionType.INCLUDE);
      CommentsTable.Writer writer = new CommentsTable.Writer(c, TABLE, seed, 40);
      writer.comments(250, 40, 6 * 60);
      Instant backfillStart = Instant.now();
      BackfillIT.Result backfill = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + CommentsTable.GROUP_INDEX,
          "--output=" + index);
      assertThat(backfill.err(), backfill.code(), is(0));
      phase("backfilled");

      // no watermark yet: the first run needs --since
      BackfillIT.Result first = catchUp(local, index);
      assertThat(first.err(), first.code(), is(2));
      assertThat(first.err(), containsString("--since"));

      CatchUpWatermark watermark = new CatchUpWatermark(index);
      for (int round = 1; round <= 2; round++) {
        writer.comments(120, 0, 14);
        writer.comments(25, 16, 28); // late: an older bucket than the watermark's, inside the overlap
        writer.duplicates(30);
        Instant before = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
        BackfillIT.Result r = round == 1
            ? catchUp(local, index, "--since=" + backfillStart, "--commit")
            : catchUp(local, index, "--commit");
        assertThat(r.err(), r.code(), is(0));
        System.err.print(r.out());
        assertThat(r.out(), containsString("pagemark commit: published build"));
        assertThat(r.out(), containsString(" 0 dead letters"));
        assertThat(watermark.read().orElseThrow().isBefore(before), is(false));
        phase("round " + round + " caught up");
        check(c, index, writer, "seed " + seed + ", round " + round);
        phase("round " + round + " checked");
      }

      // a run killed while it appends leaves the watermark; the next run reads the same buckets again
      writer.comments(150, 0, 14);
      writer.comments(25, 16, 28);
      Instant mark = watermark.read().orElseThrow();
      long segmentsBefore = segments(index);
      Process killed = start(local, index, dir.resolve("killed.log"));
      awaitTrue(120, () -> segments(index) > segmentsBefore || !killed.isAlive(),
          "the catch-up wrote no WAL segment");
      boolean aliveAtKill = killed.isAlive();
      Optional<Instant> atKill = watermark.read();
      killed.destroyForcibly();
      assertThat(killed.waitFor(30, TimeUnit.SECONDS), is(true));
      assertThat(log(dir.resolve("killed.log")), aliveAtKill, is(true));
      if (!atKill.orElseThrow().equals(mark)) {
        System.err.println("CatchUpIT: the kill came after the watermark moved (segments appended: "
            + (segments(index) - segmentsBefore) + ")");
      }
      phase("killed");
      writer.duplicates(40);
      BackfillIT.Result after = catchUp(local, index, "--commit");
      assertThat(after.err(), after.code(), is(0));
      System.err.print(after.out());
      assertThat(segments(index), is(0L));
      try (Index idx = Indexes.open(index.toString())) {
        BuildInfo.Commit commit = new IndexLayout(index).buildInfo(idx.buildId()).commit();
        // the killed run's segments and the replay of its buckets: the same items twice, applied once each
        assertThat(commit.stale() + commit.applied(), greaterThan(175L));
      }
      check(c, index, writer, "seed " + seed + ", after the killed run");
    }
  }

  @Test
  void aBucketIndexThatDoesNotProjectTheGroupingKeysIsRefusedWithWhatToDo(@TempDir Path dir, DynamoDbLocal local) {
    try (DynamoDbClient c = local.client()) {
      CommentsTable.create(c, "keysonly", ProjectionType.KEYS_ONLY);
    }
    BackfillIT.Result r = BackfillIT.cli("catch-up", "--table=keysonly", "--gsi=" + CommentsTable.GROUP_INDEX,
        "--index=" + dir.resolve("index"), "--bucketIndex=" + CommentsTable.BUCKET_INDEX,
        "--since=2026-01-01T00:00:00Z", "--dynamoEndpoint=" + local.endpoint());
    assertThat(r.err(), r.code(), is(1));
    assertThat(r.err(), containsString("byBucket does not project PK2, SK2"));
    assertThat(r.err(), containsString("INCLUDE"));
  }

  @Test
  void aNumericBucketKeyNeedsAPatternOfDigits(@TempDir Path dir, DynamoDbLocal local) {
    try (DynamoDbClient c = local.client()) {
      c.createTable(b -> b.tableName("numbered").billingMode(BillingMode.PAY_PER_REQUEST)
          .attributeDefinitions(def("PK", ScalarAttributeType.S), def("PK2", ScalarAttributeType.S),
              def("SK2", ScalarAttributeType.S), def("bucket", ScalarAttributeType.N))
          .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build())
          .globalSecondaryIndexes(
              gsi(CommentsTable.GROUP_INDEX, "PK2", "SK2"), gsi(CommentsTable.BUCKET_INDEX, "bucket", "PK2")));
    }
    BackfillIT.Result r = BackfillIT.cli("catch-up", "--table=numbered", "--gsi=" + CommentsTable.GROUP_INDEX,
        "--index=" + dir.resolve("index"), "--bucketIndex=" + CommentsTable.BUCKET_INDEX,
        "--bucketFormat=yyyy-MM-dd'T'HH:mm", "--since=2026-01-01T00:00:00Z", "--dynamoEndpoint=" + local.endpoint());
    assertThat(r.err(), r.code(), is(1));
    assertThat(r.err(), containsString("the bucket attribute bucket is a number, but --bucketFormat"));
  }

  private static AttributeDefinition def(String name, ScalarAttributeType type) {
    return AttributeDefinition.builder().attributeName(name).attributeType(type).build();
  }

  private static GlobalSecondaryIndex gsi(String name, String hash, String range) {
    return GlobalSecondaryIndex.builder().indexName(name)
        .keySchema(KeySchemaElement.builder().attributeName(hash).keyType(KeyType.HASH).build(),
            KeySchemaElement.builder().attributeName(range).keyType(KeyType.RANGE).build())
        .projection(p -> p.projectionType(ProjectionType.ALL)).build();
  }

  private final long started = System.nanoTime();

  /** A progress line on stderr, so that a slow run shows where its time went. */
  private void phase(String what) {
    System.err.printf("CatchUpIT: %s after %.1f s%n", what, (System.nanoTime() - started) / 1e9);
  }

  private static void check(DynamoDbClient c, Path index, CommentsTable.Writer writer, String where)
      throws Exception {
    try {
      CommentsTable.assertEveryPageIsDynamoDbsPage(c, TABLE, index.toString(), writer.groups(), PAGE);
    } catch (AssertionError e) {
      throw new AssertionError(where + ": " + e.getMessage(), e);
    }
    try (Index idx = Indexes.open(index.toString())) {
      assertThat(where, new IndexLayout(index).buildInfo(idx.buildId()).counts().entries(),
          is((long) writer.size()));
    }
  }

  static BackfillIT.Result catchUp(DynamoDbLocal local, Path index, String... extra) {
    List<String> args = new ArrayList<>(List.of("catch-up", "--table=" + TABLE, "--gsi=" + CommentsTable.GROUP_INDEX,
        "--index=" + index, "--bucketIndex=" + CommentsTable.BUCKET_INDEX, "--bucketAttribute=bucket",
        "--dynamoEndpoint=" + local.endpoint()));
    args.addAll(List.of(extra));
    return BackfillIT.cli(args.toArray(String[]::new));
  }

  /** {@code pagemark catch-up} in a JVM of its own (so that it can be killed), output to {@code log}. */
  private Process start(DynamoDbLocal local, Path index, Path log) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "catch-up", "--table=" + TABLE, "--gsi=" + CommentsTable.GROUP_INDEX,
        "--index=" + index, "--bucketIndex=" + CommentsTable.BUCKET_INDEX, "--dynamoEndpoint=" + local.endpoint()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    processes.add(p);
    return p;
  }

  private static long segments(Path index) {
    Path groups = new Wal(index).dir().resolve(Wal.GROUPS);
    if (!Files.isDirectory(groups)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(groups)) {
      return s.filter(p -> p.getFileName().toString().startsWith("s-")).count();
    } catch (IOException e) {
      return 0; // a segment renamed or deleted while walking: ask again
    }
  }

  private static String log(Path log) throws IOException {
    return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "(no log)";
  }

  private static void awaitTrue(int seconds, java.util.function.BooleanSupplier condition, String what)
      throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError(what + " within " + seconds + " s");
      }
      Thread.sleep(5);
    }
  }
}
