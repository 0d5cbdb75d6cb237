package io.pagemark.server.resp;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server in-process over a small file index with runs of equal sort keys, through a raw RESP client: members and
 * ranks in both of DynamoDB's orders, page starts as the lookup library computes them, the keyspace, pipelining, and
 * requests that break the protocol.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RespServerTest {
  @TempDir
  static Path dir;
  RespFixture index;
  RespServer server;

  @BeforeAll
  void start() throws Exception {
    index = new RespFixture(dir.resolve("index")).group("ties", 300, 1).group("small", 3, 2).plainGroup("big", 20_000);
    for (String h : RespFixture.HOSTILE) {
      index.group(h, 12, h.hashCode());
    }
    index.publish("b1");
    server = RespServer.start(RespServer.Options.of(index.root.toString()).withPort(0).withThreads(2));
  }

  @AfterAll
  void stop() {
    server.close();
  }

  RawClient client() throws Exception {
    return new RawClient(server.port());
  }

  @Test
  void rangesFollowDynamoDbsOrderInBothDirections() throws Exception {
    try (RawClient c = client()) {
      for (String g : List.of("ties", "small", "big", "../x", "nul\u0000byte", "k".repeat(300))) {
        List<String> asc = index.expected(g, true);
        List<String> desc = index.expected(g, false);
        assertThat(g, c.call("ZCARD", g), equalTo((long) asc.size()));
        assertThat(g, c.call("ZRANGE", g, "0", "-1"), equalTo(asc));
        assertThat(g, c.call("ZREVRANGE", g, "0", "-1"), equalTo(desc));
        assertThat(g, c.call("ZRANGE", g, "0", "-1", "REV"), equalTo(desc));
      }
      List<String> asc = index.expected("ties", true);
      List<String> desc = index.expected("ties", false);
      for (int i = 0; i < asc.size(); i++) {
        String s = Integer.toString(i);
        assertThat(c.call("ZRANGE", "ties", s, s), equalTo(List.of(asc.get(i))));
        assertThat(c.call("ZREVRANGE", "ties", s, s), equalTo(List.of(desc.get(i))));
        assertThat(c.call("ZRANK", "ties", asc.get(i)), equalTo((long) i));
        assertThat(c.call("ZSCORE", "ties", asc.get(i)), equalTo(s));
        assertThat(c.call("ZREVRANK", "ties", desc.get(i)), equalTo((long) i));
        assertThat(c.call("ZREVRANGE", "ties", s, s, "WITHSCORES"),
            equalTo(List.of(desc.get(i), Long.toString(asc.indexOf(desc.get(i))))));
      }
    }
  }

  @Test
  void negativeIndexesScoresAndLimitsAreRedissOwn() throws Exception {
    List<String> asc = index.expected("ties", true);
    int n = asc.size();
    try (RawClient c = client()) {
      assertThat(c.call("ZRANGE", "ties", "-2", "-1", "WITHSCORES"),
          equalTo(List.of(asc.get(n - 2), Integer.toString(n - 2), asc.get(n - 1), Integer.toString(n - 1))));
      assertThat(c.call("ZRANGE", "ties", "5", "2"), equalTo(List.of()));
      assertThat(c.call("ZRANGE", "ties", "-1000", "1"), equalTo(asc.subList(0, 2)));
      assertThat(c.call("ZRANGE", "ties", "(1", "3", "BYSCORE"), equalTo(asc.subList(2, 4)));
      assertThat(c.call("ZRANGEBYSCORE", "ties", "-inf", "+inf", "LIMIT", "10", "3"), equalTo(asc.subList(10, 13)));
      assertThat(c.call("ZRANGE", "ties", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "0", "2"),
          equalTo(List.of(asc.get(n - 1), asc.get(n - 2))));
      assertThat(c.call("ZCOUNT", "ties", "(10", "20"), equalTo(10L));
      assertThat(c.call("ZRANGE", "ties", "0", "1", "LIMIT", "0", "1"), equalTo(new RawClient.Error(
          "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")));
      assertThat(c.call("ZRANGE", "ties", "000001", "2"),
          equalTo(new RawClient.Error("ERR value is not an integer or out of range")));
      assertThat(c.call("ZRANGE", "ties", "x", "2", "BYSCORE"),
          equalTo(new RawClient.Error("ERR min or max is not a float")));
      assertThat(c.call("ZRANGE", "nope", "0", "-1"), equalTo(List.of()));
      assertThat(c.call("ZSCORE", "ties", "{\"not\":\"a member\"}"), equalTo(null));
      assertThat(c.call("ZMSCORE", "ties", asc.get(7), "x"), equalTo(java.util.Arrays.asList("7", null)));
    }
  }

  @Test
  void pageStartsAreTheLookupLibrarysInBothOrders() throws Exception {
    try (RawClient c = client(); Index idx = Indexes.open(index.root.toString());
        GroupPages pages = idx.group("ties")) {
      for (Order order : Order.values()) {
        for (int size : new int[] {1, 7, 20, 300, 1000}) {
          for (long page = 1; page <= pages.pages(size); page++) {
            PageStart p = pages.pageStart(page, size, order);
            List<Object> expected = new ArrayList<>();
            expected.add(p.count());
            expected.add(p.pages());
            expected.add(p.exclusiveStartKey() == null ? null : SortedSetCommands.json(p.exclusiveStartKey()));
            expected.add(p.skip());
            assertThat(c.call("PM.PAGE", "ties", Long.toString(page), Integer.toString(size), order.name()),
                equalTo(expected));
          }
        }
      }
      Object tooFar = c.call("PM.PAGE", "ties", "16", "20");
      assertThat(tooFar, equalTo(new RawClient.Error("ERR group {\"S\":\"ties\"} has 15 pages of 20; page 16 is out of range")));
    }
  }

  @Test
  void theKeyspaceHoldsEveryGroupAsASortedSet() throws Exception {
    try (RawClient c = client()) {
      Set<String> seen = new HashSet<>();
      String cursor = "0";
      do {
        @SuppressWarnings("unchecked")
        List<Object> r = (List<Object>) c.call("SCAN", cursor, "COUNT", "3");
        cursor = (String) r.get(0);
        for (Object k : (List<?>) r.get(1)) {
          seen.add((String) k);
        }
      } while (!cursor.equals("0"));
      Set<String> all = new HashSet<>();
      index.groups.keySet().forEach(k -> all.add(k.text()));
      assertThat(seen, equalTo(all));
      assertThat(c.call("DBSIZE"), equalTo((long) all.size()));
      assertThat(c.call("TYPE", "ties"), equalTo("zset"));
      assertThat(c.call("TYPE", "nope"), equalTo("none"));
      assertThat(c.call("EXISTS", "ties", "nope", "new\nline", "ties"), equalTo(3L));
      assertThat(c.call("KEYS", "t?es"), equalTo(List.of("ties")));
      @SuppressWarnings("unchecked")
      List<Object> matched = (List<Object>) c.call("SCAN", "0", "MATCH", "*\u00e9*", "COUNT", "1000");
      assertThat(matched.get(1), equalTo(List.of("\u00e9")));
    }
  }

  @Test
  void aKeyThatIsNotUtf8NamesNoGroup() throws Exception {
    try (RawClient c = client()) {
      byte[] key = {(byte) 0xC3, (byte) 0x28, (byte) 0xFF};
      byte[] req = concat("*2\r\n$5\r\nZCARD\r\n$3\r\n".getBytes(StandardCharsets.US_ASCII), key,
          "\r\n".getBytes(StandardCharsets.US_ASCII));
      c.send(req);
      assertThat(c.read(), equalTo(0L));
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    try (RawClient c = client()) {
      java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
      for (int i = 0; i < 2000; i++) {
        b.writeBytes(RawClient.command("ZRANGE", "big", Integer.toString(i), Integer.toString(i)));
        b.writeBytes(RawClient.command("PING"));
      }
      b.writeBytes("PING\r\n".getBytes(StandardCharsets.US_ASCII)); // inline, as telnet sends it
      c.send(b.toByteArray());
      List<String> asc = index.expected("big", true);
      for (int i = 0; i < 2000; i++) {
        assertThat(c.read(), equalTo(List.of(asc.get(i))));
        assertThat(c.read(), equalTo("PONG"));
      }
      assertThat(c.read(), equalTo("PONG"));
    }
  }

  @Test
  void aRequestArrivingByteByByteIsAnsweredOnce() throws Exception {
    try (RawClient c = client()) {
      for (byte x : RawClient.command("ECHO", "h\u00e9llo")) {
        c.send(new byte[] {x});
      }
      assertThat(c.read(), equalTo("h\u00e9llo"));
    }
  }

  @Test
  void protocolErrorsCloseThatConnectionOnly() throws Exception {
    try (RawClient other = client()) {
      assertThat(other.call("PING"), equalTo("PONG"));
      for (byte[] bad : List.of("*1\r\n*1\r\n*1\r\n*1\r\n".getBytes(StandardCharsets.US_ASCII),
          "*1\r\n$536870912\r\nxx".getBytes(StandardCharsets.US_ASCII),
          "*2\r\n$4\r\nECHO\r\n$x\r\n".getBytes(StandardCharsets.US_ASCII),
          "*3000000\r\n".getBytes(StandardCharsets.US_ASCII))) {
        try (RawClient c = client()) {
          c.send(bad);
          Object r = c.read();
          assertThat(r, instanceOf(RawClient.Error.class));
          assertThat(((RawClient.Error) r).message(), startsWith("ERR Protocol error"));
          assertThat(c.closedByServer(), is(true));
        }
      }
      assertThat(other.call("ZCARD", "ties"), equalTo(300L));
    }
  }

  @Test
  void unknownCommandsAndWrongAritiesGetRedissTexts() throws Exception {
    try (RawClient c = client()) {
      assertThat(c.call("FOO", "bar", "baz"),
          equalTo(new RawClient.Error("ERR unknown command 'FOO', with args beginning with: 'bar' 'baz' ")));
      assertThat(c.call("zrange", "ties"),
          equalTo(new RawClient.Error("ERR wrong number of arguments for 'zrange' command")));
      assertThat(c.call("HELLO", "3"), instanceOf(RawClient.Error.class));
      assertThat(((RawClient.Error) c.call("HELLO", "3")).message(), startsWith("NOPROTO"));
      assertThat(c.call("SELECT", "1"), equalTo(new RawClient.Error("ERR DB index is out of range")));
      assertThat(c.call("SELECT", "0"), equalTo("OK"));
      assertThat(c.call("CONFIG", "GET", "save"), equalTo(List.of("save", "")));
      assertThat(c.call("CLIENT", "SETNAME", "resp-test"), equalTo("OK"));
      assertThat(c.call("CLIENT", "GETNAME"), equalTo("resp-test"));
      assertThat(c.call("ZADD", "ties", "1", "x"), instanceOf(RawClient.Error.class));
      assertThat(c.call("QUIT"), equalTo("OK"));
      assertThat(c.closedByServer(), is(true));
    }
  }

  @Test
  void aNewBuildIsServedOnceItIsPublished() throws Exception {
    Path other = dir.resolve("other");
    RespFixture f = new RespFixture(other).plainGroup("g", 10);
    f.publish("o1");
    try (RespServer s = RespServer.start(RespServer.Options.of(other.toString()).withPort(0).withThreads(1));
        RawClient c = new RawClient(s.port())) {
      assertThat(c.call("ZCARD", "g"), equalTo(10L));
      f.plainGroup("g", 25).publish("o2");
      long deadline = System.currentTimeMillis() + 10_000;
      Object n = c.call("ZCARD", "g");
      while (!n.equals(25L) && System.currentTimeMillis() < deadline) {
        Thread.onSpinWait();
        n = c.call("ZCARD", "g");
      }
      assertThat(n, equalTo(25L));
      assertThat(s.buildId(), equalTo("o2"));
    }
  }

  private static byte[] concat(byte[]... parts) {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    for (byte[] p : parts) {
      b.writeBytes(p);
    }
    return b.toByteArray();
  }

  static KeyValue s(String text) {
    return KeyValue.ofString(text);
  }
}
