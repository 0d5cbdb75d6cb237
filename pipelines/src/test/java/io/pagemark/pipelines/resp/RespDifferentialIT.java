package io.pagemark.pipelines.resp;

import static io.pagemark.pipelines.BackfillIT.backfill;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.server.resp.RespServer;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.RedisServer;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * pagemark resp against a real redis-server loaded with the same sorted sets (each group's members with their ranks
 * as scores): the same list of commands, sent to both through a raw socket, Jedis and redis-cli, gets byte-identical
 * replies. Descending reads inside runs of equal sort keys are left out of the comparison: there pagemark follows
 * DynamoDB's order rather than the reverse of the ascending one, and is compared with DynamoDB's instead.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class RespDifferentialIT {
  static final String TABLE = "respDiff";
  @TempDir
  static Path dir;
  DynamoDbLocal local;
  RespServer resp;
  RedisServer redis;
  Map<String, Integer> counts;
  /** Per group, the members in ascending order, and whether each one's sort key is shared by a neighbour. */
  final Map<String, List<String>> members = new java.util.LinkedHashMap<>();
  final Map<String, boolean[]> tied = new java.util.LinkedHashMap<>();

  @BeforeAll
  void start(DynamoDbLocal local) throws Exception {
    this.local = local;
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      var items = TrickyTable.items(21);
      items.forEach(it -> it.remove("pad")); // the big group's 8 kB of padding only matters to scans
      SampleComments.load(client, TABLE, items, 2, null);
      counts = TrickyTable.expectedCounts(items, "SK");
    }
    Path index = dir.resolve("index");
    BackfillIT.Result r = backfill(local, "--table=" + TABLE, "--gsi=byString", "--output=" + index);
    assertThat(r.err(), r.code(), is(0));
    resp = RespServer.start(RespServer.Options.of(index.toString()).withPort(0));
    redis = RedisServer.start();
    try (Jedis from = new Jedis("127.0.0.1", resp.port()); Jedis to = redis.client()) {
      for (String g : counts.keySet()) {
        byte[] key = g.getBytes(StandardCharsets.UTF_8);
        List<byte[]> m = from.zrange(key, 0, -1);
        List<String> text = new ArrayList<>();
        for (int i = 0; i < m.size(); i++) {
          to.zadd(key, i, m.get(i));
          text.add(new String(m.get(i), StandardCharsets.UTF_8));
        }
        members.put(g, text);
        tied.put(g, ties(text));
      }
    }
  }

  @AfterAll
  void stop() throws Exception {
    resp.close();
    redis.close();
  }

  /** Whether each member's sort key (SK) equals a neighbour's. */
  private static boolean[] ties(List<String> members) throws Exception {
    String[] sk = new String[members.size()];
    for (int i = 0; i < sk.length; i++) {
      sk[i] = RespClients.startKey(members.get(i)).get("SK").text();
    }
    boolean[] t = new boolean[sk.length];
    for (int i = 0; i < sk.length; i++) {
      t[i] = (i > 0 && sk[i].equals(sk[i - 1])) || (i + 1 < sk.length && sk[i].equals(sk[i + 1]));
    }
    return t;
  }

  /** The commands both servers get. */
  List<List<byte[]>> commands() {
    List<List<byte[]>> c = new ArrayList<>();
    c.add(RespClients.args("PING"));
    c.add(RespClients.args("PING", "hello"));
    c.add(RespClients.args("ECHO", "\u00e9\u4e2d\uD83D\uDE00"));
    c.add(RespClients.args("SELECT", "0"));
    c.add(RespClients.args("CONFIG", "GET", "save"));
    c.add(RespClients.args("CONFIG", "GET", "appendonly"));
    c.add(RespClients.args("CLIENT", "SETNAME", "differential"));
    c.add(RespClients.args("CLIENT", "GETNAME"));
    c.add(RespClients.args("DBSIZE"));
    c.add(RespClients.args("FOO", "bar", "baz"));
    c.add(RespClients.args("zrange", "ties"));
    c.add(RespClients.args("ZCARD"));
    c.add(RespClients.args("ZCARD", "nope"));
    c.add(RespClients.args("ZRANGE", "nope", "0", "-1"));
    c.add(RespClients.args("ZSCORE", "nope", "x"));
    c.add(RespClients.args("ZRANK", "nope", "x"));
    c.add(RespClients.args("TYPE", "nope"));
    for (String g : List.of("ties", "utf", "big", "mixed", "../x", "nul\u0000byte", "k".repeat(1000), "new\nline",
        "\u00e9", "e\u0301")) {
      List<String> m = members.get(g);
      int n = m.size();
      c.add(RespClients.args("ZCARD", g));
      c.add(RespClients.args("TYPE", g));
      c.add(RespClients.args("EXISTS", g, "nope", g));
      c.add(RespClients.args("ZRANGE", g, "0", "-1"));
      c.add(RespClients.args("ZRANGE", g, "0", "-1", "WITHSCORES"));
      c.add(RespClients.args("ZRANGE", g, "-3", "-1", "WITHSCORES"));
      c.add(RespClients.args("ZRANGE", g, "2", "1"));
      c.add(RespClients.args("ZRANGE", g, "-100000", "1"));
      c.add(RespClients.args("ZRANGE", g, Integer.toString(n), Integer.toString(n + 5)));
      c.add(RespClients.args("ZRANGE", g, "(1", "4", "BYSCORE", "WITHSCORES"));
      c.add(RespClients.args("ZRANGE", g, "-inf", "+inf", "BYSCORE", "LIMIT", "2", "3"));
      c.add(RespClients.args("ZRANGE", g, "+inf", "(2", "BYSCORE", "REV", "LIMIT", "1", "4", "WITHSCORES"));
      c.add(RespClients.args("ZRANGE", g, "3.5", "1e1", "BYSCORE"));
      c.add(RespClients.args("ZRANGEBYSCORE", g, "1", "3", "WITHSCORES", "LIMIT", "0", "-1"));
      c.add(RespClients.args("ZREVRANGEBYSCORE", g, "5", "-inf", "LIMIT", "1", "2"));
      c.add(RespClients.args("ZRANGE", g, "0", "1", "LIMIT", "0", "1"));
      c.add(RespClients.args("ZRANGE", g, "x", "1"));
      c.add(RespClients.args("ZRANGE", g, "000001", "2"));
      c.add(RespClients.args("ZRANGE", g, "a", "b", "BYSCORE"));
      c.add(RespClients.args("ZRANGE", g, "0", "1", "REV", "REV"));
      c.add(RespClients.args("ZREVRANGE", g, "0", "1", "BYSCORE"));
      c.add(RespClients.args("ZCOUNT", g, "(1", "5"));
      c.add(RespClients.args("ZCOUNT", g, "-inf", "+inf"));
      for (int i : new int[] {0, n / 2, n - 1}) {
        c.add(RespClients.args("ZRANK", g, m.get(i)));
        c.add(RespClients.args("ZSCORE", g, m.get(i)));
        c.add(RespClients.args("ZRANGE", g, Integer.toString(i), Integer.toString(i)));
      }
      c.add(RespClients.args("ZMSCORE", g, m.get(0), "{\"not\":\"a member\"}", m.get(n - 1)));
      c.add(RespClients.args("ZRANK", g, m.get(0).replace("\"S\":", "\"N\":")));
      // descending reads only where no run of equal sort keys is involved
      boolean[] t = tied.get(g);
      for (int q = 0; q + 2 < n; q++) {
        int lo = n - 1 - (q + 2);
        int hi = n - 1 - q;
        if (!t[lo] && !t[lo + 1] && !t[hi]) {
          c.add(RespClients.args("ZREVRANGE", g, Integer.toString(q), Integer.toString(q + 2), "WITHSCORES"));
          c.add(RespClients.args("ZRANGE", g, Integer.toString(q), Integer.toString(q + 2), "REV"));
          c.add(RespClients.args("ZREVRANK", g, m.get(hi)));
          break;
        }
      }
    }
    return c;
  }

  @Test
  void rawRepliesAreByteIdentical() throws Exception {
    List<List<byte[]>> commands = commands();
    try (RawReplies a = new RawReplies(resp.port()); RawReplies b = new RawReplies(redis.port())) {
      for (List<byte[]> c : commands) {
        byte[] x = a.call(c);
        byte[] y = b.call(c);
        assertThat(describe(c), new String(x, StandardCharsets.ISO_8859_1),
            equalTo(new String(y, StandardCharsets.ISO_8859_1)));
      }
    }
  }

  @Test
  void jedisSeesTheSameReplies() throws Exception {
    try (Jedis a = new Jedis("127.0.0.1", resp.port()); Jedis b = redis.client()) {
      for (List<byte[]> c : commands()) {
        if (SafeEncoder.encode(c.get(0)).equalsIgnoreCase("CLIENT")) {
          continue; // Jedis keeps the connection's name itself
        }
        assertThat(describe(c), normalize(call(a, c)), equalTo(normalize(call(b, c))));
      }
    }
  }

  @Test
  void redisCliPrintsTheSame() throws Exception {
    List<List<byte[]>> commands = commands();
    List<String> a = RespClients.redisCli(resp.port(), commands);
    List<String> b = RespClients.redisCli(redis.port(), commands);
    assertThat(a.size(), greaterThan(commands.size()));
    for (int i = 0; i < Math.max(a.size(), b.size()); i++) {
      assertThat("line " + i, i < a.size() ? a.get(i) : "<none>", equalTo(i < b.size() ? b.get(i) : "<none>"));
    }
  }

  @Test
  void descendingReadsInsideRunsOfEqualSortKeysAreDynamoDbs() throws Exception {
    try (Jedis a = new Jedis("127.0.0.1", resp.port()); Jedis b = redis.client();
        DynamoDbClient client = local.client()) {
      for (String g : List.of("ties", "utf")) {
        List<String> ours = a.zrevrange(g, 0, -1);
        assertThat(new java.util.HashSet<>(ours), equalTo(new java.util.HashSet<>(b.zrevrange(g, 0, -1))));
        List<String> dynamo = new ArrayList<>();
        for (var page : io.pagemark.pipelines.PageWalk.pages(client, TABLE, "byString", g, 1000, false)) {
          for (var item : page) {
            dynamo.add(RespWritesIT.key(item));
          }
        }
        List<String> served = new ArrayList<>();
        for (String m : ours) {
          var k = RespClients.startKey(m);
          served.add(k.get("PK").text() + "|" + k.get("SK").text());
        }
        assertThat(g, served, equalTo(dynamo));
      }
    }
  }

  private static Object call(Jedis j, List<byte[]> c) {
    try {
      return j.sendCommand(() -> c.get(0), c.subList(1, c.size()).toArray(new byte[0][]));
    } catch (JedisDataException e) {
      return "error: " + e.getMessage();
    }
  }

  /** Byte arrays as text, lists element by element, so that replies compare with equals. */
  private static Object normalize(Object o) {
    if (o instanceof byte[]) {
      return new String((byte[]) o, StandardCharsets.ISO_8859_1);
    }
    if (o instanceof List) {
      List<Object> out = new ArrayList<>();
      for (Object x : (List<?>) o) {
        out.add(normalize(x));
      }
      return out;
    }
    return o;
  }

  private static String describe(List<byte[]> c) {
    StringBuilder b = new StringBuilder();
    for (byte[] a : c) {
      String s = new String(a, StandardCharsets.UTF_8);
      b.append(s.length() > 60 ? s.substring(0, 57) + "..." : s).append(' ');
    }
    return b.toString().trim();
  }
}
