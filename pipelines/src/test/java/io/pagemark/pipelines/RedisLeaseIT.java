package io.pagemark.pipelines;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Two backfills of one Redis key prefix started at once: one takes the prefix's load lease and publishes, the other
 * exits 1 at once naming the holder and when its lease expires; every live set is complete afterwards, and once the
 * winner released the lease a third backfill loads the prefix again.
 */
@ExtendWith({DynamoDbLocalExtension.class, RedisExtension.class})
class RedisLeaseIT {
  static final String TABLE = "trickyLease";
  static final String PREFIX = "it:lease:";
  static final int DB = 6;

  @Test
  void twoBackfillsOfOnePrefixAtOnceOneWinsTheOtherSaysWhoHoldsIt(DynamoDbLocal local, RedisServer redis)
      throws Exception {
    List<Map<String, AttributeValue>> items = TrickyTable.items(23);
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      SampleComments.load(client, TABLE, items, 2, null);
    }
    try (Jedis j = redis.client()) {
      j.select(DB);
      j.flushDB();
    }
    String uri = "redis://127.0.0.1:" + redis.port() + "/" + DB;
    CountDownLatch start = new CountDownLatch(1);
    List<CompletableFuture<BackfillIT.Result>> runs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      runs.add(CompletableFuture.supplyAsync(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        return BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=byString", "--redis=" + uri,
            "--redisKeyPrefix=" + PREFIX, "--redisLeaseSeconds=20");
      }));
    }
    start.countDown();
    BackfillIT.Result a = runs.get(0).get(3, TimeUnit.MINUTES);
    BackfillIT.Result b = runs.get(1).get(3, TimeUnit.MINUTES);
    BackfillIT.Result won = a.code() == 0 ? a : b;
    BackfillIT.Result lost = a.code() == 0 ? b : a;
    assertThat(won.err(), won.code(), is(0));
    assertThat(lost.out(), lost.code(), is(1));
    assertThat(lost.err(), containsString("pagemark backfill: another backfill is loading prefix \"" + PREFIX
        + "\" at " + uri + ": \"pagemark backfill of table " + TABLE + ", pid " + ProcessHandle.current().pid()));
    assertThat(lost.err(), containsString("holds its load lease (token 1) until "));
    assertThat(lost.err(), containsString("wait for it to finish, or load under another --redisKeyPrefix"));
    assertLiveSetsComplete(uri, items);

    try (Jedis j = redis.client()) {
      j.select(DB);
      assertThat("the winner released its lease", j.exists(("it:lease:{index}loader").getBytes()), is(false));
    }
    BackfillIT.Result again = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=byString", "--redis=" + uri,
        "--redisKeyPrefix=" + PREFIX);
    assertThat(again.err(), again.code(), is(0));
    assertLiveSetsComplete(uri, items);
  }

  static void assertLiveSetsComplete(String uri, List<Map<String, AttributeValue>> items) throws Exception {
    Map<String, Integer> expected = new TreeMap<>(TrickyTable.expectedCounts(items, "SK"));
    Map<String, Integer> found = new TreeMap<>();
    try (Index index = Indexes.open(uri + "?prefix=" + URLEncoder.encode(PREFIX, StandardCharsets.UTF_8))) {
      for (KeyValue g : index.groups()) {
        try (GroupPages pages = index.group(g)) {
          found.put(g.text(), (int) pages.count());
        }
      }
    }
    assertThat(found, equalTo(expected));
  }
}
