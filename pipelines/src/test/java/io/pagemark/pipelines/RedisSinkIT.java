package io.pagemark.pipelines;

import io.pagemark.testing.LocalProcess;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.in;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.sink.redis.RedisLoadSummary;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ClientType;
import redis.clients.jedis.params.ClientKillParams;
import redis.clients.jedis.params.SetParams;

/**
 * The Redis sink against a real redis-server: atomic publish while a reader polls, connection drops and a server
 * restart in the middle of a load, an unreachable server, cleanup of stale keys and vanished groups, and a prefix that
 * holds another index.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(RedisExtension.class)
class RedisSinkIT {
  RedisServer redis;

  @BeforeAll
  void startRedis(RedisServer redis) throws Exception {
    this.redis = redis;
  }

  String uri(int db) {
    return "redis://127.0.0.1:" + redis.port() + "/" + db;
  }

  Jedis client(int db) {
    Jedis j = redis.client();
    j.select(db);
    return j;
  }

  void flush(int db) {
    try (Jedis j = client(db)) {
      j.flushDB();
    }
  }

  static WriteRedisSortedSets write(String uri, String prefix, String build) {
    return WriteRedisSortedSets.to(uri).withSchema(TrickyParts.COMMENTS).withKeyPrefix(prefix)
        .withBuild(build, 1_700_000_000_000L);
  }

  static List<OrderedPart> group(String name, int n, long seed, int partSize) {
    KeyValue g = KeyValue.ofString(name);
    return TrickyParts.split(g, TrickyParts.comments(g, n, seed), partSize);
  }

  /** The members of a group's live set, decoded, must be exactly the records of its parts, in order. */
  static void assertHolds(Jedis j, RedisLayout layout, List<OrderedPart> parts) {
    List<IndexRecord> expected = new ArrayList<>();
    parts.forEach(p -> expected.addAll(p.records()));
    List<IndexRecord> actual = new ArrayList<>();
    for (byte[] m : j.zrange(layout.liveKey(RedisLayout.groupBytes(parts.get(0).group())), 0, -1)) {
      actual.add(SortedSetMember.decode(m, TrickyParts.COMMENTS.storedAttributes()));
    }
    assertThat(actual.size(), is(expected.size()));
    assertThat(actual, equalTo(expected));
  }

  @Test
  void aReaderPollingDuringARebuildSeesOnlyTheOldOrTheNewSet() throws Exception {
    int db = 5;
    flush(db);
    String prefix = "test:swap:";
    RedisLayout layout = new RedisLayout(prefix);
    List<OrderedPart> a = new ArrayList<>(group("hot", 3_000, 1, 500));
    List<OrderedPart> other = group("other", 40, 3, 500);
    a.addAll(other);
    RedisLoads.run(a, write(uri(db), prefix, "b1")).finish();

    List<OrderedPart> b = new ArrayList<>(group("hot", 6_000, 2, 500));
    b.addAll(other);
    byte[] live = layout.liveKey(RedisLayout.groupBytes(KeyValue.ofString("hot")));
    byte[] otherLive = layout.liveKey(RedisLayout.groupBytes(KeyValue.ofString("other")));
    byte[] temp = layout.tempKey("b2", RedisLayout.groupBytes(KeyValue.ofString("hot")));
    Set<Long> seen = ConcurrentHashMap.newKeySet();
    Set<Long> otherSeen = ConcurrentHashMap.newKeySet();
    AtomicLong reads = new AtomicLong();
    AtomicLong readsWhileLoading = new AtomicLong();
    List<Long> tempTtls = new ArrayList<>();
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Exception> readerFailure = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try (Jedis j = client(db); Index index = Indexes.open(uri(db) + "?prefix=" + prefix)) {
        while (!done.get()) {
          long partial = j.zcard(temp);
          seen.add(j.zcard(live));
          otherSeen.add(j.zcard(otherLive));
          try (var pages = index.group("hot")) {
            seen.add(pages.count());
          }
          reads.incrementAndGet();
          if (partial > 0 && partial < 6_000) {
            readsWhileLoading.incrementAndGet();
            tempTtls.add(j.pttl(temp));
          }
        }
      } catch (Exception e) {
        readerFailure.set(e);
      }
    });
    reader.start();
    RedisLoads.Running rebuild = RedisLoads.start(b, write(uri(db), prefix, "b2").withBatchSize(5));
    try {
      rebuild.finish();
    } finally {
      done.set(true);
      reader.join();
    }
    if (readerFailure.get() != null) {
      throw readerFailure.get();
    }
    assertThat(seen, everyItem(in(Set.of(3_000L, 6_000L))));
    assertThat(seen.contains(6_000L), is(true));
    assertThat(otherSeen, equalTo(Set.of(40L)));
    assertThat("the reader must have read while the new set was half loaded", readsWhileLoading.get(),
        greaterThan(10L));
    assertThat("a temporary set always has a TTL", tempTtls, everyItem(greaterThan(0L)));
    try (Jedis j = client(db)) {
      assertHolds(j, layout, group("hot", 6_000, 2, 500));
      assertThat(j.keys(layout.tempKeyPattern()), empty());
    }
  }

  @Test
  void droppedConnectionsAreRetriedWithoutLosingOrDuplicatingMembers() throws Exception {
    int db = 6;
    flush(db);
    String prefix = "test:drops:";
    List<OrderedPart> parts = new ArrayList<>();
    for (int g = 0; g < 6; g++) {
      parts.addAll(group("g" + g, 1_500, 10 + g, 300));
    }
    RedisLoads.Running load = RedisLoads.start(parts, write(uri(db), prefix, "b1").withBatchSize(3));
    long killed = 0;
    try (Jedis admin = client(db)) {
      while (!load.ended()) {
        killed += admin.clientKill(ClientKillParams.clientKillParams().type(ClientType.NORMAL)
            .skipMe(ClientKillParams.SkipMe.YES));
        Thread.sleep(30); // pace the kills so that some round trips get through
      }
    }
    RedisLoadSummary s = load.finish();
    assertThat("the test must have dropped connections during the load", killed, greaterThan(0L));
    assertThat(load.counter("redisRetries"), greaterThan(0L));
    assertThat(load.counter("redisPartsReloaded"), is(0L));
    assertThat(s.entries(), is(9_000L));
    try (Jedis j = client(db)) {
      for (int g = 0; g < 6; g++) {
        assertHolds(j, new RedisLayout(prefix), group("g" + g, 1_500, 10 + g, 300));
      }
    }
  }

  @Test
  void aRedisRestartInTheMiddleOfALoadEndsWithTheCompleteSet() throws Exception {
    try (RedisServer own = RedisServer.start()) {
      String prefix = "test:restart:";
      RedisLayout layout = new RedisLayout(prefix);
      List<OrderedPart> parts = group("hot", 30_000, 7, 30_000);
      assertThat(parts.size(), is(1));
      byte[] temp = layout.tempKey("b1", RedisLayout.groupBytes(KeyValue.ofString("hot")));
      RedisLoads.Running load = RedisLoads.start(parts, write(own.uri(), prefix, "b1").withBatchSize(2));
      long atKill = 0;
      long deadline = System.currentTimeMillis() + 120_000;
      try (Jedis j = own.client()) {
        while (atKill < 3_000) {
          assertThat("the load ended before the test could restart Redis",
              load.ended(), is(false));
          assertThat("the load did not reach 3,000 members within 120 s", System.currentTimeMillis(),
              lessThan(deadline));
          atKill = j.zcard(temp);
        }
      }
      own.kill();
      own.restart();
      RedisLoadSummary s = load.finish();
      assertThat(s.entries(), is(30_000L));
      assertThat(load.counter("redisPartsReloaded"), greaterThan(0L));
      assertThat(load.counter("redisRetries"), greaterThan(0L));
      try (Jedis j = own.client()) {
        assertHolds(j, layout, parts);
      }
      try (Index index = Indexes.open(own.uri()); var pages = index.group("hot")) {
        assertThat(index.buildId(), equalTo("b1"));
        assertThat(pages.count(), is(30_000L));
      }
    }
  }

  @Test
  void anUnreachableRedisFailsWithAMessageNamingItsAddress() throws Exception {
    int port = LocalProcess.freePort();
    String uri = "redis://127.0.0.1:" + port + "/0";
    List<OrderedPart> parts = group("hot", 10, 1, 10);
    RuntimeException e = assertThrows(RuntimeException.class,
        () -> RedisLoads.run(parts, write(uri, "test:x:", "b1")).finish());
    assertThat(RedisLoads.rootMessage(e), containsString("cannot reach Redis at " + uri + " ("));
    assertThat(RedisLoads.rootMessage(e), containsString("(given as --redis)"));

    // Where only the workers check (withCheckBeforeRun(false)), they give up after the retry time.
    long started = System.nanoTime();
    e = assertThrows(RuntimeException.class, () -> RedisLoads.run(parts, write(uri, "test:x:", "b1")
        .withCheckBeforeRun(false).withMaxRetryTime(Duration.ofSeconds(2))).finish());
    assertThat(RedisLoads.rootMessage(e), containsString("cannot reach Redis at " + uri));
    assertThat(RedisLoads.rootMessage(e), containsString("after 2.0 s of retries"));
    assertThat((System.nanoTime() - started) / 1e9, lessThan(60.0));
  }

  @Test
  void groupsTheTableLostAndStaleOrLeftoverTemporarySetsAreRemovedButARunningBuildsAreKept() throws Exception {
    int db = 7;
    flush(db);
    String prefix = "test:cleanup:";
    RedisLayout layout = new RedisLayout(prefix);
    List<OrderedPart> first = new ArrayList<>(group("a", 30, 1, 100));
    first.addAll(group("b", 20, 2, 100));
    RedisLoads.run(first, write(uri(db), prefix, "b1")).finish();

    byte[] stale = layout.tempKey("b0", "x".getBytes(StandardCharsets.UTF_8));
    byte[] running = layout.tempKey("brun", "y".getBytes(StandardCharsets.UTF_8));
    try (Jedis j = client(db)) {
      j.zadd(stale, 0, new byte[] {1});
      j.zadd(running, 0, new byte[] {1});
      j.set(layout.leaseKey("brun"), "1".getBytes(StandardCharsets.US_ASCII), SetParams.setParams().px(60_000));
      // left by an earlier attempt of build b2 that loaded other data: must not end up in the published set
      j.zadd(layout.tempKey("b2", RedisLayout.groupBytes(KeyValue.ofString("a"))), 0, new byte[] {2});
    }
    List<OrderedPart> second = group("a", 25, 3, 100);
    RedisLoadSummary s = RedisLoads.run(second, write(uri(db), prefix, "b2")).finish();
    assertThat(s.groupsRemoved(), is(1L));
    assertThat(s.staleKeysRemoved(), is(1L));
    assertThat(s.line(), containsString("published build b2 to " + uri(db) + " under key prefix \"test:cleanup:\":"
        + " 25 entries in 1 groups; removed 1 groups the table no longer has and 1 stale temporary sets"));
    try (Jedis j = client(db)) {
      assertThat(j.exists(stale), is(false));
      assertThat(j.exists(running), is(true));
      assertThat(j.exists(layout.leaseKey("b2")), is(false));
      assertThat(j.keys(layout.stampKeyPattern()).size(), is(1));
      assertHolds(j, layout, second);
    }
    try (Index index = Indexes.open(uri(db)); Jedis j = client(db)) {
      assertThat(index.buildId(), equalTo("b2"));
      RedisIndexMeta meta = RedisIndexMeta.fromHash(j.hgetAll(layout.metaKey()));
      assertThat(meta.entries(), is(25L));
      assertThat(meta.groups(), is(1L));
      assertThrows(GroupNotFoundException.class, () -> index.group("b"));
    }
  }

  @Test
  void aPrefixHoldingAnotherIndexIsRefusedBeforeAndWhileRunning() throws Exception {
    int db = 8;
    flush(db);
    String prefix = "test:conflict:";
    TrickyParts.Index numbers = TrickyParts.numbers(1, 100);
    RedisLoads.run(numbers.parts(), WriteRedisSortedSets.to(uri(db)).withSchema(numbers.schema())
        .withKeyPrefix(prefix).withBuild("b1", 0)).finish();
    String expected = "key prefix \"test:conflict:\" at " + uri(db) + " holds the index of table tricky, index"
        + " byNumber (G N; NUM N, PK S, SK S), not of table comments, index byProduct (PK2 S; SK S, PK S); choose"
        + " another --redisKeyPrefix, or delete that index's keys first";
    List<OrderedPart> parts = group("hot", 10, 1, 10);
    RuntimeException e = assertThrows(RuntimeException.class,
        () -> RedisLoads.run(parts, write(uri(db), prefix, "b2")).finish());
    assertThat(RedisLoads.rootMessage(e), equalTo(expected));
    e = assertThrows(RuntimeException.class,
        () -> RedisLoads.run(parts, write(uri(db), prefix, "b2").withCheckBeforeRun(false)).finish());
    assertThat(RedisLoads.rootMessage(e), equalTo(expected));
    try (Index index = Indexes.open(uri(db))) {
      assertThat(index.buildId(), equalTo("b1"));
    }
  }
}
