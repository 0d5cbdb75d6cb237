package io.pagemark.pipelines;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One backfill of the tricky table into files and Redis at once: for every group, page and order, `lookup` prints the
 * same line from both backends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, RedisExtension.class})
class RedisBackfillIT {
  static final String TABLE = "trickyRedis";
  DynamoDbLocal local;
  RedisServer redis;
  List<Map<String, AttributeValue>> items;

  @BeforeAll
  void setUp(DynamoDbLocal local, RedisServer redis) throws Exception {
    this.local = local;
    this.redis = redis;
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      items = TrickyTable.items(13);
      SampleComments.load(client, TABLE, items, 2, null);
    }
  }

  @Test
  void redisLookupsEqualFileLookupsForEveryGroupPageAndOrder(@TempDir Path dir) throws Exception {
    for (String[] gsi : new String[][] {{"byString", "SK"}, {"byNumber", "NUM"}}) {
      Path out = dir.resolve(gsi[0]);
      String prefix = "it:" + TABLE + ":" + gsi[0] + ":";
      BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + gsi[0], "--output=" + out,
          "--redis=" + redis.uri(), "--redisKeyPrefix=" + prefix, "--redisBatchSize=50", "--maxPartEntries=60");
      assertThat(r.err(), r.code(), is(0));
      String redisIndex = redis.uri() + "?prefix=" + java.net.URLEncoder.encode(prefix, "UTF-8");
      Map<String, Integer> groups = TrickyTable.expectedCounts(items, gsi[1]);
      int compared = 0;
      for (Map.Entry<String, Integer> g : groups.entrySet()) {
        long pages = (g.getValue() + 6) / 7;
        String pageList = String.join(",",
            java.util.stream.LongStream.rangeClosed(1, pages).mapToObj(Long::toString).toList());
        for (String order : new String[] {"asc", "desc"}) {
          BackfillIT.Result file = BackfillIT.cli("lookup", "--index=" + out, "--group=" + g.getKey(),
              "--page=" + pageList, "--pageSize=7", "--order=" + order);
          BackfillIT.Result fromRedis = BackfillIT.cli("lookup", "--index=" + redisIndex, "--group=" + g.getKey(),
              "--page=" + pageList, "--pageSize=7", "--order=" + order);
          assertThat(file.err(), file.code(), is(0));
          assertThat(fromRedis.err(), fromRedis.code(), is(0));
          assertThat("group " + g.getKey() + " " + order, fromRedis.out(), equalTo(file.out()));
          compared += file.out().split("\n").length;
        }
      }
      try (Index index = Indexes.open(out.toString())) {
        assertThat(r.out(), containsString("published build " + index.buildId()));
      }
      assertThat(compared > 100, is(true));
    }
  }
}
