package io.pagemark.pipelines.resp;

import static io.pagemark.pipelines.BackfillIT.backfill;
import static io.pagemark.pipelines.BackfillIT.cli;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.server.resp.RespServer;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.util.SafeEncoder;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Every page of every group of the backfill test table (ties, UTF-8 order, hostile group keys, numeric sort keys), in
 * both orders, read the way a client of {@code pagemark resp} reads it: the member before the page from
 * {@code ZRANGE} or {@code ZREVRANGE key r r} through redis-cli, then one DynamoDB Local Query from it, equals the page
 * DynamoDB's own cursor walk returns; and {@code PM.PAGE} answers exactly what {@code pagemark lookup} prints.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class RespPagesIT {
  static final String TABLE = "respPages";
  static final ProtocolCommand PM_PAGE = () -> SafeEncoder.encode("PM.PAGE");
  @TempDir
  static Path dir;
  DynamoDbLocal local;
  DynamoDbClient client;
  List<Map<String, AttributeValue>> items;

  @BeforeAll
  void createTable(DynamoDbLocal local) throws Exception {
    this.local = local;
    client = local.client();
    TrickyTable.create(client, TABLE);
    items = TrickyTable.items(13);
    SampleComments.load(client, TABLE, items, 2, null);
  }

  @AfterAll
  void close() {
    client.close();
  }

  @ParameterizedTest(name = "{0}: pages of {2}")
  @CsvSource({"byString,SK,10", "byNumber,NUM,9"})
  void everyPageThroughZrangeAndOneQueryIsDynamoDbsPage(String gsi, String sortAttribute, int size) throws Exception {
    Path index = dir.resolve(gsi);
    BackfillIT.Result r = backfill(local, "--table=" + TABLE, "--gsi=" + gsi, "--output=" + index);
    assertThat(r.err(), r.code(), is(0));
    Map<String, Integer> counts = TrickyTable.expectedCounts(items, sortAttribute);
    try (RespServer server = RespServer.start(RespServer.Options.of(index.toString()).withPort(0));
        Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      for (Map.Entry<String, Integer> g : counts.entrySet()) {
        byte[] key = g.getKey().getBytes(StandardCharsets.UTF_8);
        for (Order order : Order.values()) {
          List<List<Map<String, AttributeValue>>> walk =
              PageWalk.pages(client, TABLE, gsi, g.getKey(), size, order == Order.ASC);
          List<List<byte[]>> commands = new ArrayList<>();
          commands.add(List.of("ZCARD".getBytes(StandardCharsets.US_ASCII), key));
          for (int n = 2; n <= walk.size(); n++) {
            byte[] rank = Integer.toString((n - 1) * size - 1).getBytes(StandardCharsets.US_ASCII);
            commands.add(List.of((order == Order.ASC ? "ZRANGE" : "ZREVRANGE").getBytes(StandardCharsets.US_ASCII),
                key, rank, rank));
          }
          List<String> lines = RespClients.redisCli(server.port(), commands);
          String where = gsi + " group " + g.getKey() + " " + order;
          assertThat(where, lines.size(), is(walk.size()));
          assertThat(where, lines.get(0), equalTo(Integer.toString(g.getValue())));
          for (int n = 1; n <= walk.size(); n++) {
            Map<String, KeyValue> from = n == 1 ? null : RespClients.startKey(lines.get(n - 1));
            PageStart start = new PageStart(KeyValue.ofString(g.getKey()), n, size, order, g.getValue(), walk.size(),
                from, 0);
            assertThat(where + " page " + n, PageWalk.keys(PageWalk.fromStart(client, TABLE, gsi, start)),
                equalTo(PageWalk.keys(walk.get(n - 1))));
          }
          pageStartsAreTheLookups(jedis, index, g.getKey(), key, size, order, walk.size());
        }
      }
    }
  }

  /** {@code PM.PAGE} of every page: the lookup CLI's count, pages, exclusive start key (same text) and skip. */
  private void pageStartsAreTheLookups(Jedis jedis, Path index, String group, byte[] key, int size, Order order,
      int pages) {
    List<String> numbers = new ArrayList<>();
    for (int n = 1; n <= pages; n++) {
      numbers.add(Integer.toString(n));
    }
    BackfillIT.Result lookup = cli("lookup", "--index=" + index, "--group=" + group, "--page="
        + String.join(",", numbers), "--pageSize=" + size, "--order=" + order.label());
    assertThat(lookup.err(), lookup.code(), is(0));
    String[] lines = lookup.out().split("\n");
    for (int n = 1; n <= pages; n++) {
      @SuppressWarnings("unchecked")
      List<Object> reply = (List<Object>) jedis.sendCommand(PM_PAGE, key, SafeEncoder.encode(Integer.toString(n)),
          SafeEncoder.encode(Integer.toString(size)), SafeEncoder.encode(order.name()));
      String line = lines[n - 1];
      String esk = line.substring(line.indexOf(",\"exclusiveStartKey\":") + ",\"exclusiveStartKey\":".length(),
          line.lastIndexOf(",\"skip\":"));
      String skip = line.substring(line.lastIndexOf(",\"skip\":") + ",\"skip\":".length(), line.length() - 1);
      String where = "PM.PAGE " + group + " " + n + " " + size + " " + order;
      assertThat(where, reply.get(0), equalTo(jsonNumber(line, "count")));
      assertThat(where, reply.get(1), equalTo(jsonNumber(line, "pages")));
      assertThat(where, reply.get(2) == null ? "null" : new String((byte[]) reply.get(2), StandardCharsets.UTF_8),
          equalTo(esk));
      assertThat(where, reply.get(3), equalTo(Long.parseLong(skip)));
    }
  }

  private static Long jsonNumber(String line, String field) {
    int at = line.indexOf("\"" + field + "\":") + field.length() + 3;
    int end = at;
    while (end < line.length() && Character.isDigit(line.charAt(end))) {
      end++;
    }
    return Long.parseLong(line.substring(at, end));
  }
}
