package io.pagemark.pipelines;

import io.pagemark.testing.LocalProcess;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.pipelines.cli.LookupCommand;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.GroupRepublishedException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.transforms.sink.redis.RedisLoadSummary;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * The Redis backend of the lookup against a real redis-server: for indexes of every key type and the tricky kinds of
 * records, every page start equals the file index's for the same parts, through the library and through the CLI.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(RedisExtension.class)
class RedisLookupIT {
  static final int[] PAGE_SIZES = {1, 3, 7, 50};
  static final List<String> KINDS = List.of("strings", "numbers", "binaries");
  /** Database of the three indexes loaded once for this class (other tests use other databases). */
  static final int DB = 1;
  RedisServer redis;
  @TempDir static Path files;

  @BeforeAll
  void loadAnIndexOfEveryKeyTypeIntoRedisAndIntoFiles(RedisServer redis) throws Exception {
    this.redis = redis;
    try (Jedis j = redis.client()) {
      j.select(DB);
      j.flushDB();
    }
    for (String kind : KINDS) {
      TrickyParts.Index index = index(kind, 5);
      RedisLoadSummary s = load(DB, prefix(kind), index, "b1");
      assertThat(s.entries(), is(index.entries()));
      assertThat(s.groups(), is((long) index.groups().size()));
      FileIndexFixture.write(files.resolve(kind), index.schema(), "b1", index.parts());
    }
  }

  String uri(int db) {
    return "redis://127.0.0.1:" + redis.port() + "/" + db;
  }

  static String prefix(String kind) {
    return "test:lookup:" + kind + ":";
  }

  String spec(String kind) {
    return uri(DB) + "?prefix=" + prefix(kind);
  }

  static TrickyParts.Index index(String kind, long seed) {
    switch (kind) {
      case "strings":
        return TrickyParts.strings(seed, 40);
      case "numbers":
        return TrickyParts.numbers(seed, 40);
      default:
        return TrickyParts.binaries(seed, 40);
    }
  }

  RedisLoadSummary load(int db, String prefix, TrickyParts.Index index, String buildId) {
    WriteRedisSortedSets write = WriteRedisSortedSets.to(uri(db)).withSchema(index.schema()).withKeyPrefix(prefix)
        .withBuild(buildId, 1_700_000_000_000L).withBatchSize(7);
    return RedisLoads.run(index.parts(), write).finish();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"strings", "numbers", "binaries"})
  void everyPageStartInBothOrdersEqualsTheFileIndexs(String kind) throws Exception {
    long compared = 0;
    long withSkip = 0;
    try (Index file = Indexes.open(files.resolve(kind).toString()); Index red = Indexes.open(spec(kind))) {
      assertThat(red.buildId(), equalTo("b1"));
      assertThat(red.groupType(), equalTo(file.groupType()));
      for (KeyValue g : index(kind, 5).groups()) {
        try (GroupPages f = file.group(g); GroupPages r = red.group(g)) {
          assertThat(r.count(), is(f.count()));
          assertThat(r.group().text(), equalTo(f.group().text()));
          for (int size : PAGE_SIZES) {
            for (Order order : Order.values()) {
              for (long page = 1; page <= f.pages(size); page++) {
                PageStart expected = f.pageStart(page, size, order);
                assertThat(g + " page " + page + " of " + size + " " + order,
                    LookupCommand.toJson(r.pageStart(page, size, order)), equalTo(LookupCommand.toJson(expected)));
                compared++;
                withSkip += expected.skip() > 0 ? 1 : 0;
              }
            }
          }
        }
      }
    }
    assertThat(compared, greaterThan(500L));
    assertThat("some pages must start inside runs of unknown order for this test to mean anything", withSkip,
        greaterThan(0L));
  }

  @Test
  void theCliPrintsTheSameLinesForBothBackends() {
    List<String> groups = List.of("ties", "utf", "new\nline", "k".repeat(1000), "nul\u0000byte");
    for (String group : groups) {
      for (String order : List.of("asc", "desc")) {
        List<String> args = List.of("--group=" + group, "--page=1,2,3", "--pageSize=2", "--order=" + order);
        BackfillIT.Result viaFile = lookup("--index=" + files.resolve("strings"), args);
        BackfillIT.Result viaRedis = lookup("--index=" + spec("strings"), args);
        assertThat(viaFile.err(), viaFile.code(), is(0));
        assertThat(viaRedis.err(), viaRedis.code(), is(0));
        assertThat(viaRedis.out(), equalTo(viaFile.out()));
        assertThat(viaRedis.out().split("\n").length, is(3));
      }
    }
    for (String kind : List.of("numbers", "binaries")) {
      for (KeyValue g : index(kind, 5).groups()) {
        List<String> args = List.of("--group=" + g.text(), "--page=1,2", "--pageSize=3", "--order=desc");
        BackfillIT.Result viaFile = lookup("--index=" + files.resolve(kind), args);
        assertThat(viaFile.err(), viaFile.code(), is(0));
        assertThat(lookup("--index=" + spec(kind), args).out(), equalTo(viaFile.out()));
      }
    }
  }

  @Test
  void lookupErrorsFollowTheCliContract() throws Exception {
    String a = spec("strings");
    long ties = index("strings", 5).parts().stream().filter(p -> p.group().text().equals("ties"))
        .mapToLong(p -> p.records().size()).sum();
    long pages = (ties + 9) / 10;

    BackfillIT.Result r = lookup("--index=" + a, List.of("--group=ties", "--page=1," + (pages + 1), "--pageSize=10"));
    assertThat(r.code(), is(3));
    assertThat(r.out(), equalTo(""));
    assertThat(r.err(), containsString("has " + pages + " pages of 10; page " + (pages + 1) + " is out of range"));

    r = lookup("--index=" + a, List.of("--group=nope", "--page=1", "--pageSize=10"));
    assertThat(r.code(), is(3));
    assertThat(r.err(), containsString("group {\"S\":\"nope\"} is not in the index under prefix"));

    r = lookup("--index=" + a, List.of("--group=ties", "--page=1", "--pageSize=10", "--build=b0"));
    assertThat(r.code(), is(3));
    assertThat(r.err(), containsString("is at build b1"));
    assertThat(lookup("--index=" + a, List.of("--group=ties", "--page=1", "--pageSize=10", "--build=b1")).code(),
        is(0));

    r = lookup("--index=" + uri(DB), List.of("--group=ties", "--page=1", "--pageSize=10"));
    assertThat(r.code(), is(1));
    assertThat(r.err(), containsString("holds 3 pagemark indexes, with key prefixes \"test:lookup:binaries:\","
        + " \"test:lookup:numbers:\", \"test:lookup:strings:\"; choose one with " + uri(DB) + "?prefix=KEYPREFIX"));

    r = lookup("--index=" + uri(DB) + "?prefix=test:nothing:", List.of("--group=x", "--page=1", "--pageSize=1"));
    assertThat(r.code(), is(1));
    assertThat(r.err(), containsString("no pagemark index under prefix \"test:nothing:\" at " + uri(DB)));

    r = lookup("--index=" + uri(9), List.of("--group=x", "--page=1", "--pageSize=1"));
    assertThat(r.code(), is(1));
    assertThat(r.err(), containsString("no pagemark index at " + uri(9)));

    int closed = LocalProcess.freePort();
    r = lookup("--index=redis://127.0.0.1:" + closed, List.of("--group=x", "--page=1", "--pageSize=1"));
    assertThat(r.code(), is(1));
    assertThat(r.err(), containsString("cannot reach Redis at redis://127.0.0.1:" + closed + "/0"));

    r = lookup("--index=redis://127.0.0.1:notaport", List.of("--group=x", "--page=1", "--pageSize=1"));
    assertThat(r.code(), is(2));
    assertThat(r.err(), containsString("expected redis://HOST:PORT[/DB]"));
  }

  @Test
  void aGroupRepublishedWhileItIsReadIsNeverMixedWithTheNewBuild() throws Exception {
    String prefix = "test:republish:";
    try (Jedis j = redis.client()) {
      j.select(4);
      j.flushDB();
    }
    load(4, prefix, index("strings", 21), "b1");
    try (Index index = Indexes.open(uri(4)); // the only index of its database: no prefix needed
        GroupPages ties = index.group("ties")) {
      PageStart before = ties.pageStart(2, 10, Order.ASC);
      assertThat(ties.buildId(), equalTo("b1"));
      load(4, prefix, index("strings", 22), "b2");
      GroupRepublishedException e =
          assertThrows(GroupRepublishedException.class, () -> ties.pageStart(3, 10, Order.ASC));
      assertThat(e.getMessage(), containsString("changed from build b1 to build b2"));
      try (GroupPages again = index.group("ties")) {
        assertThat(again.buildId(), equalTo("b2"));
        assertThat(LookupCommand.toJson(again.pageStart(2, 10, Order.ASC)), not(equalTo(LookupCommand.toJson(before))));
      }
    }
  }

  static BackfillIT.Result lookup(String index, List<String> args) {
    List<String> argv = new ArrayList<>(List.of("lookup", index));
    argv.addAll(args);
    return BackfillIT.cli(argv.toArray(String[]::new));
  }
}
