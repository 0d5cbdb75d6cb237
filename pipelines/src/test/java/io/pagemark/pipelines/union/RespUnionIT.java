package io.pagemark.pipelines.union;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.server.resp.RespServer;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.SafeEncoder;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code PM.UPAGE} of {@code pagemark resp} against DynamoDB Local: for every page of a union of ratings (an empty
 * rating among them) and of hostile groups, both orders, each group's Query from the start the reply names, dropping
 * {@code skip} and keeping {@code take}, returns exactly that group's items of the merged walks' page. Walked by the
 * cursors the replies hand out, {@code PM.UNEXT} answers the same; an altered cursor, or one of other groups, is an
 * error reply and the connection stays usable.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class RespUnionIT {
  static final ObjectMapper JSON = new ObjectMapper();
  UnionTable table;

  @BeforeAll
  void table() throws Exception {
    table = UnionTable.get();
  }

  @SuppressWarnings("unchecked")
  @Test
  void everyPageStartOfPmUpageReadsItsGroupsShareOfTheMergedPage() throws Exception {
    int size = 8;
    try (RespServer server = RespServer.start(RespServer.Options.of(table.files("byString")).withPort(0));
        Jedis jedis = new Jedis("127.0.0.1", server.port())) {
      for (List<String> union : List.of(
          List.of(RatingsGroups.rating(5), RatingsGroups.rating(2), RatingsGroups.rating(3), RatingsGroups.rating(1)),
          List.of("a/b", "..", "CON", "\u00e9"))) {
        for (Order order : Order.values()) {
          List<Map<String, AttributeValue>> merged = RatingsGroups.merged(
              table.client, UnionTable.TABLE, "byString", "SK", KeyType.S, union, order == Order.ASC);
          long pages = (merged.size() + size - 1) / size;
          byte[] cursor = null;
          for (int n = 1; n <= pages; n++) {
            List<byte[]> args = new ArrayList<>(List.of(SafeEncoder.encode(Integer.toString(n)),
                SafeEncoder.encode(Integer.toString(size)), SafeEncoder.encode(order.name())));
            union.forEach(g -> args.add(g.getBytes(StandardCharsets.UTF_8)));
            List<Object> reply = (List<Object>) jedis.sendCommand(() -> SafeEncoder.encode("PM.UPAGE"),
                args.toArray(byte[][]::new));
            String where = "PM.UPAGE " + union + " page " + n + " " + order;
            if (n > 1) {
              // the walk by cursor: PM.UNEXT answers what PM.UPAGE does for the page the cursor names
              List<byte[]> next = new ArrayList<>(List.of(cursor));
              union.forEach(g -> next.add(g.getBytes(StandardCharsets.UTF_8)));
              assertThat(where, text(jedis.sendCommand(() -> SafeEncoder.encode("PM.UNEXT"),
                  next.toArray(byte[][]::new))), equalTo(text(reply)));
            }
            cursor = (byte[]) reply.get(3);
            assertThat(where, cursor == null, is(n == pages));
            assertThat(where, reply.get(0), equalTo((long) merged.size()));
            assertThat(where, reply.get(1), equalTo(pages));
            List<Map<String, AttributeValue>> page = merged.subList((n - 1) * size,
                Math.min(merged.size(), n * size));
            long taken = 0;
            for (Object o : (List<Object>) reply.get(2)) {
              List<Object> start = (List<Object>) o;
              String group = SafeEncoder.encode((byte[]) start.get(0));
              long take = (Long) start.get(3);
              taken += take;
              List<Map<String, AttributeValue>> want = new ArrayList<>();
              page.stream().filter(i -> i.get("PK2").s().equals(group)).forEach(want::add);
              assertThat(where + " " + group, take, is((long) want.size()));
              if (take > 0) {
                Map<String, KeyValue> from =
                    start.get(1) == null ? null : startKey(SafeEncoder.encode((byte[]) start.get(1)));
                PageStart one = new PageStart(KeyValue.ofString(group), 1, (int) take, order, 0, 1, from,
                    (Long) start.get(2));
                assertThat(where + " " + group,
                    PageWalk.keys(PageWalk.fromStart(table.client, UnionTable.TABLE, "byString", one)),
                    equalTo(PageWalk.keys(want)));
              }
            }
            assertThat(where, taken, is((long) page.size()));
          }
        }
      }
      JedisDataException past = assertThrows(JedisDataException.class, () -> jedis.sendCommand(
          () -> SafeEncoder.encode("PM.UPAGE"), "99", "20", "ASC", "ties", "utf"));
      assertThat(past.getMessage(), containsString("page 99 is out of range"));
      JedisDataException twice = assertThrows(JedisDataException.class, () -> jedis.sendCommand(
          () -> SafeEncoder.encode("PM.UPAGE"), "1", "20", "ASC", "ties", "ties"));
      assertThat(twice.getMessage(), containsString("given twice"));

      List<Object> first = (List<Object>) jedis.sendCommand(
          () -> SafeEncoder.encode("PM.UPAGE"), "1", "3", "DESC", "ties", "utf");
      String cursor = SafeEncoder.encode((byte[]) first.get(3));
      String altered = cursor.substring(0, 4) + (cursor.charAt(4) == 'A' ? 'B' : 'A') + cursor.substring(5);
      for (String[] bad : List.of(new String[] {altered, "ties", "utf"}, new String[] {cursor, "ties"},
          new String[] {"?", "ties", "utf"})) {
        JedisDataException refused = assertThrows(JedisDataException.class,
            () -> jedis.sendCommand(() -> SafeEncoder.encode("PM.UNEXT"), bad));
        assertThat(refused.getMessage(), containsString("cursor is refused"));
      }
      List<Object> second = (List<Object>) jedis.sendCommand(
          () -> SafeEncoder.encode("PM.UNEXT"), cursor, "utf", "ties");
      assertThat(second.get(1), equalTo(first.get(1)));
      assertThat(jedis.ping(), equalTo("PONG"));
    }
  }

  /** A reply with its bulk strings as text, to compare replies. */
  static Object text(Object reply) {
    if (reply instanceof byte[] b) {
      return SafeEncoder.encode(b);
    }
    if (reply instanceof List<?> l) {
      List<Object> out = new ArrayList<>();
      l.forEach(o -> out.add(text(o)));
      return out;
    }
    return reply;
  }

  static Map<String, KeyValue> startKey(String json) throws Exception {
    JsonNode root = JSON.readTree(json);
    Map<String, KeyValue> key = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String type = e.getValue().fieldNames().next();
      key.put(e.getKey(), KeyValue.parse(KeyType.fromDynamoName(type), e.getValue().get(type).asText()));
    }
    return key;
  }
}
