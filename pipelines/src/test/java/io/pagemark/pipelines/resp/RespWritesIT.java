package io.pagemark.pipelines.resp;

import static io.pagemark.pipelines.BackfillIT.backfill;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.Main;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.util.SafeEncoder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Changes from a client: items are written to, moved in and deleted from DynamoDB Local and the same changes sent to
 * {@code pagemark resp --wal} as ZADD and ZREM; the server is killed (SIGKILL) before the commit and started again;
 * {@code PM.COMMIT} then publishes every acknowledged change, and every page of the changed groups, in both orders,
 * equals DynamoDB's walk of the changed table, through {@code ZRANGE}/{@code ZREVRANGE} and through {@code PM.PAGE}.
 */
@ExtendWith(DynamoDbLocalExtension.class)
class RespWritesIT {
  static final String TABLE = "respWrites";
  static final String GSI = TrickyTable.BY_NUMBER;
  static final List<String> NUMBERS = List.of("-1", "0", "1", "1.0000000000000000000000000000000000001",
      "99999999999999999999999999999999999999", "-1E-130", "2", "1E+2");
  static final Pattern LISTENING = Pattern.compile("pagemark resp: serving build .* on [^ ]+:(\\d+) ");
  @TempDir
  Path dir;

  @Test
  void acknowledgedChangesSurviveAKillAndCommitToDynamoDbsPages(DynamoDbLocal local) throws Exception {
    Path index = dir.resolve("index");
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      List<Map<String, AttributeValue>> items = TrickyTable.items(29);
      items.forEach(it -> it.remove("pad")); // the big group's 8 kB of padding only matters to scans
      SampleComments.load(client, TABLE, items, 2, null);
      BackfillIT.Result r = backfill(local, "--table=" + TABLE, "--gsi=" + GSI, "--output=" + index);
      assertThat(r.err(), r.code(), is(0));

      Process resp = start(index, local, dir.resolve("resp-1.log"));
      int staged;
      long tiesBefore;
      try (Jedis j = new Jedis("127.0.0.1", port(resp))) {
        tiesBefore = j.zcard("ties");
        staged = change(client, j, items, new Random(5));
      } finally {
        resp.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: acknowledged changes must survive
      }

      Process again = start(index, local, dir.resolve("resp-2.log"));
      try (Jedis j = new Jedis("127.0.0.1", port(again), 120_000)) {
        assertThat("nothing is served before the commit", j.zcard("ties"), equalTo(tiesBefore));
        @SuppressWarnings("unchecked")
        List<Object> commit = (List<Object>) j.sendCommand(() -> SafeEncoder.encode("PM.COMMIT"));
        assertThat(commit.get(2), equalTo(SafeEncoder.encode("published")));
        assertThat(commit.get(3), equalTo(1L));
        assertThat(commit.get(5), equalTo((long) staged));
        assertThat(commit.get(7), equalTo((long) staged));
        for (String g : List.of("ties", "utf", "../x")) {
          for (Order order : Order.values()) {
            pagesAreDynamoDbs(client, j, g, order, 9);
          }
        }
      } finally {
        again.destroy(); // SIGTERM: drains and stops
        assertThat("pagemark resp stops on SIGTERM", again.waitFor(30, TimeUnit.SECONDS), is(true));
      }
    }
  }

  /**
   * Writes, moves and deletes items of three groups in DynamoDB and sends the same changes to the server, pipelined;
   * returns how many ZADD/ZREM members it staged (each acknowledged as new to, or present in, the served build).
   */
  private static int change(DynamoDbClient client, Jedis j, List<Map<String, AttributeValue>> items, Random r) {
    Pipeline p = j.pipelined();
    List<Response<Long>> replies = new ArrayList<>();
    int next = 0;
    List<Map<String, AttributeValue>> candidates = new ArrayList<>();
    for (Map<String, AttributeValue> it : items) {
      if (it.containsKey("PK2") && it.containsKey("NUM")
          && List.of("ties", "utf", "../x").contains(it.get("PK2").s())) {
        candidates.add(it);
      }
    }
    java.util.Collections.shuffle(candidates, r);
    for (String g : List.of("ties", "ties", "ties", "utf", "../x")) { // new items, some joining runs
      for (int i = 0; i < 6; i++) {
        Map<String, AttributeValue> it = new HashMap<>();
        it.put("PK", AttributeValue.fromS(String.format("new-%03d", next++)));
        it.put("SK", AttributeValue.fromS("s" + r.nextInt(5)));
        it.put("PK2", AttributeValue.fromS(g));
        it.put("NUM", AttributeValue.fromN(NUMBERS.get(r.nextInt(NUMBERS.size()))));
        client.putItem(b -> b.tableName(TABLE).item(it));
        replies.add(p.zadd(g, 0, member(it)));
      }
    }
    for (int i = 0; i < 30; i++) { // deletes
      Map<String, AttributeValue> it = candidates.get(i);
      client.deleteItem(b -> b.tableName(TABLE).key(Map.of("PK", it.get("PK"), "SK", it.get("SK"))));
      replies.add(p.zrem(it.get("PK2").s(), member(it)));
    }
    for (int i = 30; i < 55; i++) { // sort key moves, and a few moves to another group
      Map<String, AttributeValue> it = candidates.get(i);
      Map<String, AttributeValue> moved = new HashMap<>(it);
      moved.put("NUM", AttributeValue.fromN(NUMBERS.get(r.nextInt(NUMBERS.size()))));
      if (i % 7 == 0) {
        moved.put("PK2", AttributeValue.fromS(it.get("PK2").s().equals("ties") ? "utf" : "ties"));
      }
      if (member(moved).equals(member(it))) {
        continue;
      }
      client.putItem(b -> b.tableName(TABLE).item(moved));
      replies.add(p.zrem(it.get("PK2").s(), member(it)));
      replies.add(p.zadd(moved.get("PK2").s(), 0, member(moved)));
    }
    p.sync();
    for (Response<Long> x : replies) {
      assertThat("each change is acknowledged as new to, or present in, the served build", x.get(), equalTo(1L));
    }
    return replies.size();
  }

  /** An item's table key, as {@link PageWalk#keys} writes it. */
  static String key(Map<String, AttributeValue> item) {
    return item.get("PK").s() + "|" + item.get("SK").s();
  }

  /** An item's member: its exclusive start key on the GSI, as pagemark lookup prints it. */
  static String member(Map<String, AttributeValue> it) {
    return "{\"PK2\":" + KeyValue.ofString(it.get("PK2").s()) + ",\"NUM\":" + KeyValue.ofNumber(it.get("NUM").n())
        + ",\"PK\":" + KeyValue.ofString(it.get("PK").s()) + ",\"SK\":" + KeyValue.ofString(it.get("SK").s()) + "}";
  }

  private static void pagesAreDynamoDbs(DynamoDbClient client, Jedis j, String g, Order order,
      int size) throws Exception {
    List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(client, TABLE, GSI, g, size, order == Order.ASC);
    long count = walk.stream().mapToLong(List::size).sum();
    assertThat("count of " + g, j.zcard(g), equalTo(count));
    for (int n = 1; n <= walk.size(); n++) {
      String where = "group " + g + " " + order + " page " + n;
      Map<String, KeyValue> from = null;
      if (n > 1) {
        long rank = (long) (n - 1) * size - 1;
        List<String> m = order == Order.ASC ? j.zrange(g, rank, rank) : j.zrevrange(g, rank, rank);
        from = RespClients.startKey(m.get(0));
      }
      PageStart viaRange = new PageStart(KeyValue.ofString(g), n, size, order, count, walk.size(), from, 0);
      List<String> expected = PageWalk.keys(walk.get(n - 1));
      assertThat(where + " (ZRANGE)", PageWalk.keys(PageWalk.fromStart(client, TABLE, GSI, viaRange)),
          equalTo(expected));
      @SuppressWarnings("unchecked")
      List<Object> page = (List<Object>) j.sendCommand(() -> SafeEncoder.encode("PM.PAGE"), SafeEncoder.encode(g),
          SafeEncoder.encode(Integer.toString(n)), SafeEncoder.encode(Integer.toString(size)),
          SafeEncoder.encode(order.name()));
      Map<String, KeyValue> esk = page.get(2) == null ? null
          : RespClients.startKey(new String((byte[]) page.get(2), StandardCharsets.UTF_8));
      PageStart viaPage = new PageStart(KeyValue.ofString(g), n, size, order, count, walk.size(), esk,
          (Long) page.get(3));
      assertThat(where + " (PM.PAGE)", PageWalk.keys(PageWalk.fromStart(client, TABLE, GSI, viaPage)),
          equalTo(expected));
    }
  }

  /** Starts {@code pagemark resp --wal} in a JVM of its own, as bin/pagemark runs it. */
  static Process start(Path index, DynamoDbLocal local, Path log) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Path repo = Path.of(System.getProperty("pagemark.repo", "."));
    for (String line : Files.readAllLines(repo.resolve("server").resolve("resp-jvm.options"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        cmd.add(line.trim());
      }
    }
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of("resp", "--index=" + index, "--wal=" + index, "--port=0",
        "--dynamoEndpoint=" + local.endpoint()));
    return new ProcessBuilder(cmd).redirectErrorStream(true).start();
  }

  /** Waits for the line saying the server listens; returns its port (the rest of its output goes nowhere). */
  static int port(Process p) throws IOException {
    BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new ArrayList<>();
    for (String line; (line = r.readLine()) != null; ) {
      seen.add(line);
      Matcher m = LISTENING.matcher(line);
      if (m.find()) {
        Thread drain = new Thread(() -> {
          try {
            while (r.readLine() != null) {
              // keep the pipe from filling up
            }
          } catch (IOException e) {
            // the process ended
          }
        });
        drain.setDaemon(true);
        drain.start();
        return Integer.parseInt(m.group(1));
      }
    }
    throw new IOException("pagemark resp did not start: " + String.join("\n", seen));
  }
}
