package io.pagemark.pipelines;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** Builds as generations: pinned readers, gc, and verify against DynamoDB Local. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, RedisExtension.class})
class BuildsIT {
  static final String TABLE = "buildsComments";
  DynamoDbLocal local;
  DynamoDbClient client;
  List<Map<String, AttributeValue>> items;

  @BeforeAll
  void load(DynamoDbLocal local) throws Exception {
    this.local = local;
    client = local.client();
    SampleComments.createTable(client, TABLE);
    items = SampleComments.generate(2000, 10, 3);
    SampleComments.load(client, TABLE, items, 2, null);
  }

  private String build(Path out) {
    BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + SampleComments.GSI,
        "--output=" + out);
    assertThat(r.err(), r.code(), is(0));
    try {
      return new IndexLayout(out).currentBuildId();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  private List<PageStart> pages(Path out, String buildId) throws Exception {
    List<PageStart> starts = new ArrayList<>();
    try (Index index = Indexes.open(out.toString(), buildId);
        GroupPages g = index.group(SampleComments.hotProduct())) {
      for (long n = 1; n <= g.pages(10); n++) {
        starts.add(g.pageStart(n, 10, Order.ASC));
        starts.add(g.pageStart(n, 10, Order.DESC));
      }
    }
    return starts;
  }

  @Test
  void aPinnedReaderKeepsItsPagesWhileNewBuildsArePublishedAndGcKeepsTheCurrentOne(@TempDir Path dir)
      throws Exception {
    Path out = dir.resolve("index");
    String n = build(out);
    List<PageStart> before = pages(out, n);
    // the table changes, two more builds are published
    client.deleteItem(b -> b.tableName(TABLE).key(Map.of("PK", items.get(0).get("PK"), "SK", items.get(0).get("SK"))));
    String n1 = build(out);
    String n2 = build(out);
    assertThat(new IndexLayout(out).currentBuildId(), is(n2));
    assertThat(pages(out, n), equalTo(before));

    // builds younger than the grace period stay
    BackfillIT.Result young = BackfillIT.cli("gc", "--index=" + out, "--keep=1", "--graceMinutes=60");
    assertThat(young.err(), young.code(), is(0));
    assertThat(new IndexLayout(out).builds(), equalTo(List.of(n, n1, n2)));
    // expired ones go, never the current one
    BackfillIT.Result gc = BackfillIT.cli("gc", "--index=" + out, "--keep=1", "--graceMinutes=0");
    assertThat(gc.err(), gc.code(), is(0));
    assertThat(gc.out(), containsString("removed 2 build(s)"));
    assertThat(new IndexLayout(out).builds(), equalTo(List.of(n2)));
    assertThat(new IndexLayout(out).builds(), not(hasItem(n)));
    try (Index current = Indexes.open(out.toString())) {
      assertThat(current.buildId(), is(n2));
    }
  }

  @Test
  void verifyPassesOnAFreshBuildAndReportsDriftWhenItemsAreDeleted(@TempDir Path dir, RedisServer server)
      throws Exception {
    String table = "verifyComments";
    SampleComments.createTable(client, table);
    List<Map<String, AttributeValue>> own = SampleComments.generate(600, 6, 11);
    SampleComments.load(client, table, own, 2, null);
    Path out = dir.resolve("index");
    // the same build into files and into Redis: verify reads either
    String redis = server.uri();
    BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + table, "--gsi=" + SampleComments.GSI,
        "--output=" + out, "--redis=" + redis, "--redisKeyPrefix=" + table);
    assertThat(r.err(), r.code(), is(0));
    for (String index : List.of(out.toString(), redis + "?prefix=" + table)) {
      BackfillIT.Result ok = BackfillIT.cli(verify(table, index));
      assertThat(index + ": " + ok.err(), ok.code(), is(0));
      assertThat(ok.out(), containsString("pagemark verify: OK"));
      assertThat(ok.out(), containsString("6 group(s) checked, 0 disagree on counts, 0 of 300 sampled keys missing"));
    }

    for (Map<String, AttributeValue> it : own.subList(0, 60)) {
      client.deleteItem(b -> b.tableName(table).key(Map.of("PK", it.get("PK"), "SK", it.get("SK"))));
    }
    for (String index : List.of(out.toString(), redis + "?prefix=" + table)) {
      String[] verify = verify(table, index);
      BackfillIT.Result drift = BackfillIT.cli(verify);
      assertThat(index + ": " + drift.err(), drift.code(), is(1));
      assertThat(drift.out(), containsString("pagemark verify: DRIFT"));
      assertThat(drift.err(), containsString("entries in the index"));

      List<String> tolerant = new ArrayList<>(List.of(verify));
      tolerant.add("--tolerance=0.5");
      assertThat(index, BackfillIT.cli(tolerant.toArray(String[]::new)).code(), is(0));
    }
  }

  private String[] verify(String table, String index) {
    return new String[] {"verify", "--table=" + table, "--gsi=" + SampleComments.GSI, "--index=" + index,
        "--dynamoEndpoint=" + local.endpoint(), "--samplesPerGroup=50"};
  }
}
