package io.pagemark.pipelines.jdbc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.jdbc.JdbcAddress;
import io.pagemark.format.jdbc.JdbcBuilds;
import io.pagemark.format.jdbc.JdbcIndexMeta;
import io.pagemark.format.jdbc.JdbcLayout;
import io.pagemark.format.jdbc.JdbcRecords;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.Main;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.PostgresServer;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.PostgresExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A backfill into PostgreSQL killed (SIGKILL) in the middle of writing its entries: the previous build stays current
 * and every page of it still reads; the build killed is never visible; the same build run again (its bundles retried
 * over the rows the killed run committed) publishes exactly one row per entry; gc drops abandoned and old builds, and
 * a reader pinned to a dropped build is told to open the index again.
 */
@ExtendWith({DynamoDbLocalExtension.class, PostgresExtension.class})
class PostgresCrashIT {
  static final String TABLE = "crashPostgres";
  static final String GSI = "byString";
  static final String DATABASE = "crash_it";

  @Test
  void aBuildKilledMidWriteLeavesThePreviousBuildAndARetryDuplicatesNothing(DynamoDbLocal local,
      PostgresServer postgres, @TempDir Path dir) throws Exception {
    String url = postgres.createDatabase(DATABASE) + "&currentSchema=it_crash";
    JdbcAddress address = JdbcAddress.parse(url);
    JdbcLayout layout = address.layout();
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      List<Map<String, AttributeValue>> items = new ArrayList<>();
      int big = 0;
      for (Map<String, AttributeValue> item : TrickyTable.items(31)) {
        if (!(item.containsKey("PK2") && item.get("PK2").s().equals("big") && big++ >= 60)) {
          items.add(item);
        }
      }
      SampleComments.load(client, TABLE, items, 2, null);
      Map<String, Integer> expected = TrickyTable.expectedCounts(items, "SK");
      long entries = expected.values().stream().mapToLong(Integer::longValue).sum();
      BackfillIT.Result first = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + GSI, "--jdbcUrl=" + url,
          "--buildId=first", "--deadLetterOutput=" + dir.resolve("dead"));
      assertThat(first.err(), first.code(), is(0));

      // A row of the next build held by an open transaction: the backfill's batch that writes it waits, the
      // batches before it commit, and the backfill is killed while it waits.
      try (Connection c = postgres.connect(DATABASE)) {
        KeySchema schema = KeySchema.describe(client, TABLE, GSI);
        new JdbcBuilds(address).begin(c, new JdbcIndexMeta(TABLE, GSI, "PK2", schema.groupType(),
            schema.storedAttributes(), null), "killed", System.currentTimeMillis());
      }
      Process backfill;
      try (Connection blocker = postgres.connect(DATABASE)) {
        blocker.setAutoCommit(false);
        try (PreparedStatement s = blocker.prepareStatement("INSERT INTO " + layout.entries("killed")
            + " (group_key, rank, sort_key, key_1, tie_position, run_length, run_order_known, descending_slot)"
            + " VALUES (?, 45, 'x'::bytea, 'y'::bytea, 0, 1, true, 0)")) {
          s.setBytes(1, JdbcRecords.groupKey(KeyValue.ofString("big")));
          s.executeUpdate();
        }
        backfill = startBackfill(local, url, dir.resolve("killed.log"), "--buildId=killed", "--jdbcBatchSize=10");
        try {
          awaitBlockedWithRowsWritten(postgres, layout, dir.resolve("killed.log"), backfill);
          backfill.destroyForcibly();
          assertThat(backfill.waitFor(60, TimeUnit.SECONDS), is(true));
        } finally {
          backfill.destroyForcibly();
        }
        blocker.rollback();
      }

      try (Connection c = postgres.connect(DATABASE)) {
        JdbcBuilds builds = new JdbcBuilds(address);
        assertThat(builds.current(c), is("first"));
        assertThat(builds.list(c).stream().filter(b -> b.id().equals("killed")).findFirst().orElseThrow()
            .published(), is(false));
      }
      Index pinnedToFirst = Indexes.open(url, "first");
      try (Index index = Indexes.open(url)) {
        assertThat(index.buildId(), is("first"));
        assertEveryPageIsDynamoDbs(client, index, expected);
      }
      IOException loading = assertThrows(IOException.class, () -> Indexes.open(url, "killed"));
      assertThat(loading.getMessage(), containsString("not a published build"));

      // The same build again: the rows the killed run committed are written over, none is added twice.
      BackfillIT.Result retry = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + GSI, "--jdbcUrl=" + url,
          "--buildId=killed", "--jdbcBatchSize=10", "--deadLetterOutput=" + dir.resolve("dead"));
      assertThat(retry.err(), retry.code(), is(0));
      try (Connection c = postgres.connect(DATABASE); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT (group_key, rank)) FROM "
              + layout.entries("killed"))) {
        rs.next();
        assertThat(rs.getLong(1), is(entries));
        assertThat(rs.getLong(2), is(entries));
      }
      try (Index index = Indexes.open(url)) {
        assertThat(index.buildId(), is("killed"));
        for (Map.Entry<String, Integer> g : expected.entrySet()) {
          try (GroupPages pages = index.group(g.getKey())) {
            assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
          }
        }
      }

      // gc: an abandoned loading build (two hours old) and the old build go; a reader pinned to it is told why.
      try (Connection c = postgres.connect(DATABASE)) {
        new JdbcBuilds(address).begin(c, JdbcIndexMeta.read(c, address), "abandoned",
            System.currentTimeMillis() - TimeUnit.HOURS.toMillis(2));
      }
      BackfillIT.Result gc = BackfillIT.cli("gc", "--index=" + url, "--keep=1", "--graceMinutes=60");
      assertThat(gc.err(), gc.code(), is(0));
      assertThat(gc.out(), containsString("removed 0 build(s) and 1 abandoned partial build(s); kept 2"));
      gc = BackfillIT.cli("gc", "--index=" + url, "--keep=1", "--graceMinutes=0");
      assertThat(gc.out(), containsString("removed 1 build(s) and 0 abandoned partial build(s); kept 1: killed"));
      IOException gone = assertThrows(IOException.class, () -> pinnedToFirst.group("ties").close());
      assertThat(gone.getMessage(), containsString("open the index again"));
      pinnedToFirst.close();
    }
  }

  /** Waits until the backfill has committed entries of the build and waits for the held row's lock. */
  private static void awaitBlockedWithRowsWritten(PostgresServer postgres, JdbcLayout layout, Path log,
      Process backfill) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    try (Connection c = postgres.connect(DATABASE)) {
      while (System.nanoTime() < deadline) {
        if (!backfill.isAlive()) {
          throw new AssertionError("the backfill ended (code " + backfill.exitValue() + ") before it was killed:\n"
              + Files.readString(log));
        }
        if (count(c, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            + " AND application_name = 'pagemark-backfill'") > 0
            && count(c, "SELECT count(*) FROM " + layout.entries("killed")) > 0) {
          return;
        }
        backfill.waitFor(50, TimeUnit.MILLISECONDS);
      }
    }
    throw new AssertionError("the backfill never waited on the held row with entries written:\n"
        + Files.readString(log));
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Process startBackfill(DynamoDbLocal local, String url, Path log, String... extra)
      throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "backfill", "--table=" + TABLE, "--gsi=" + GSI, "--jdbcUrl=" + url,
        "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=0",
        "--deadLetterOutput=" + log.getParent().resolve("dead")));
    cmd.addAll(List.of(extra));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void assertEveryPageIsDynamoDbs(DynamoDbClient client, Index index, Map<String, Integer> expected)
      throws Exception {
    assertThat(index.groups().size(), is(expected.size()));
    long compared = 0;
    for (Map.Entry<String, Integer> g : expected.entrySet()) {
      try (GroupPages pages = index.group(g.getKey())) {
        assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
        for (boolean forward : new boolean[] {true, false}) {
          List<List<String>> walk = KeyPages.walk(client, TABLE, GSI, g.getKey(), 9, forward);
          for (int n = 1; n <= walk.size(); n++) {
            assertThat("group " + g.getKey() + " page " + n, KeyPages.page(client, TABLE, GSI,
                pages.pageStart(n, 9, forward ? Order.ASC : Order.DESC)), equalTo(walk.get(n - 1)));
            compared++;
          }
        }
      }
    }
    assertThat(compared, greaterThan(50L));
  }
}
