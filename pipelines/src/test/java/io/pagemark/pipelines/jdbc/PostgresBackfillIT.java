package io.pagemark.pipelines.jdbc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.key.KeyType;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.union.UnionWalk;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.PostgresServer;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.PostgresExtension;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The backfill into a real PostgreSQL on the tricky table (ties, UTF-8 vs UTF-16 order, 38-digit numbers, binary
 * sort keys, hostile group keys, a group of several parts): every page of every group, in both orders, read through
 * {@code Indexes.open("jdbc:postgresql://...")}, is the page DynamoDB's own LastEvaluatedKey walk returns.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, PostgresExtension.class})
class PostgresBackfillIT {
  static final String TABLE = "trickyPostgres";
  DynamoDbLocal local;
  DynamoDbClient client;
  PostgresServer postgres;
  String url;
  List<Map<String, AttributeValue>> items;

  @BeforeAll
  void setUp(DynamoDbLocal local, PostgresServer postgres) throws Exception {
    this.local = local;
    client = local.client();
    this.postgres = postgres;
    url = postgres.createDatabase("backfill_it");
    TrickyTable.create(client, TABLE);
    items = TrickyTable.items(17);
    SampleComments.load(client, TABLE, items, 2, null);
  }

  @AfterAll
  void close() {
    client.close();
  }

  @ParameterizedTest(name = "{0}: pages of {2}")
  @CsvSource({"byString,SK,7", "byNumber,NUM,3", "byBinary,BIN,5"})
  void everyPageOfEveryGroupInBothOrdersIsDynamoDbsPage(String gsi, String sortAttribute, int pageSize,
      @TempDir Path dir) throws Exception {
    String schema = "it_" + gsi;
    // parts of at most about 60 entries: the big group's ranks are its parts' starts plus positions
    BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + gsi, "--jdbcUrl=" + url,
        "--jdbcSchema=" + schema, "--jdbcBatchSize=50", "--maxPartEntries=60", "--segments=2",
        "--deadLetterOutput=" + dir);
    assertThat(r.err(), r.code(), is(0));
    assertThat(r.out(), containsString("PostgreSQL at jdbc:postgresql://127.0.0.1:"));

    Map<String, Integer> expected = TrickyTable.expectedCounts(items, sortAttribute);
    long pagesCompared = 0;
    try (Index index = Indexes.open(url + "&currentSchema=" + schema)) {
      assertThat(index.groups().size(), is(expected.size()));
      for (Map.Entry<String, Integer> g : expected.entrySet()) {
        try (GroupPages pages = index.group(g.getKey())) {
          assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
          for (boolean forward : new boolean[] {true, false}) {
            List<List<String>> walk = KeyPages.walk(client, TABLE, gsi, g.getKey(), pageSize, forward);
            assertThat(pages.pages(pageSize), is((long) walk.size()));
            for (int n = 1; n <= walk.size(); n++) {
              PageStart start = pages.pageStart(n, pageSize, forward ? Order.ASC : Order.DESC);
              assertThat("group " + g.getKey() + " page " + n + (forward ? " asc" : " desc"),
                  KeyPages.page(client, TABLE, gsi, start), equalTo(walk.get(n - 1)));
              pagesCompared++;
            }
          }
        }
      }
      // a union of groups read from PostgreSQL, walked by cursor (issue 15: unions on every backend)
      KeyType sortType = gsi.equals("byString") ? KeyType.S : gsi.equals("byNumber") ? KeyType.N : KeyType.B;
      pagesCompared += UnionWalk.assertEveryPage(client, TABLE, gsi, sortAttribute, sortType, index,
          List.of("ties", "utf", TrickyTable.HOSTILE_GROUPS.get(0)), pageSize);
    }
    assertThat(pagesCompared, greaterThan(300L));
    try (Connection c = postgres.connect("backfill_it"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT data_type FROM information_schema.columns WHERE table_schema = '"
            + schema + "' AND table_name LIKE 'entries_%' AND column_name = 'sort_key'")) {
      assertThat(rs.next(), is(true));
      assertThat("sort keys are stored exactly", rs.getString(1), is(gsi.equals("byNumber") ? "numeric" : "bytea"));
    }
  }

  @Test
  void theCliReadsThePostgresIndexWithTheSameExitCodesAsForFiles(@TempDir Path dir) throws Exception {
    String schema = "it_cli";
    Path files = dir.resolve("files");
    BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=byNumber", "--output=" + files,
        "--jdbcUrl=" + url, "--jdbcSchema=" + schema);
    assertThat(r.err(), r.code(), is(0));
    String index = url + "&currentSchema=" + schema;
    for (String group : TrickyTable.HOSTILE_GROUPS) {
      if (!TrickyTable.expectedCounts(items, "NUM").containsKey(group)) {
        continue;
      }
      for (String order : List.of("asc", "desc")) {
        BackfillIT.Result fromFiles = BackfillIT.cli("lookup", "--index=" + files, "--group=" + group, "--page=1,2",
            "--pageSize=3", "--order=" + order);
        BackfillIT.Result fromPostgres = BackfillIT.cli("lookup", "--index=" + index, "--group=" + group,
            "--page=1,2", "--pageSize=3", "--order=" + order);
        assertThat(fromPostgres.err(), fromPostgres.code(), is(fromFiles.code()));
        assertThat(fromPostgres.out(), equalTo(fromFiles.out()));
      }
    }
    BackfillIT.Result page = BackfillIT.cli("page", "--table=" + TABLE, "--gsi=byNumber", "--index=" + index,
        "--group=ties", "--page=2", "--pageSize=3", "--order=desc", "--dynamoEndpoint=" + local.endpoint());
    assertThat(page.err(), page.code(), is(0));
    assertThat(page.out(), containsString("\"stale\":false"));
    BackfillIT.Result verify = BackfillIT.cli("verify", "--table=" + TABLE, "--gsi=byNumber", "--index=" + index,
        "--dynamoEndpoint=" + local.endpoint());
    assertThat(verify.err(), verify.code(), is(0));
    assertThat(verify.out(), containsString("pagemark verify: OK"));
    BackfillIT.Result missing = BackfillIT.cli("lookup", "--index=" + index, "--group=no such group", "--page=1",
        "--pageSize=3");
    assertThat(missing.err(), missing.code(), is(3));
    BackfillIT.Result outOfRange = BackfillIT.cli("lookup", "--index=" + index, "--group=ties", "--page=1000",
        "--pageSize=3");
    assertThat(outOfRange.err(), outOfRange.code(), is(3));
    assertThat(outOfRange.err(), containsString("page 1000 is out of range"));
    BackfillIT.Result noIndex = BackfillIT.cli("lookup", "--index=" + url + "&currentSchema=nothing_here",
        "--group=ties", "--page=1", "--pageSize=3");
    assertThat(noIndex.err(), noIndex.code(), is(1));
    assertThat(noIndex.err(), containsString("no pagemark index in"));
  }
}
