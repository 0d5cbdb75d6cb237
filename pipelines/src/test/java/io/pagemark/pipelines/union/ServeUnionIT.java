package io.pagemark.pipelines.union;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.key.KeyType;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.server.http.PageServer;
import io.pagemark.server.http.ServeConfig;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code GET /v1/union/pages/{n}} and the {@code /union} web page of {@code pagemark serve}, over an index in files
 * and the same build in redis-server: every page of a union of ratings and of a union of hostile groups, both orders,
 * equals the merge of the groups' own DynamoDB walks, walked by numbered links and by signed cursors; a cursor
 * altered or moved to other groups is a 400; the web page's checkboxes and links carry the groups, escaped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, RedisExtension.class})
class ServeUnionIT {
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final ObjectMapper JSON = new ObjectMapper();
  static final List<List<String>> UNIONS = List.of(
      List.of(RatingsGroups.rating(1), RatingsGroups.rating(2), RatingsGroups.rating(3), RatingsGroups.rating(4),
          RatingsGroups.rating(5)),
      List.of("<b>", "a/b", "..", "with space", "new\nline"));
  UnionTable table;

  @BeforeAll
  void table() throws Exception {
    table = UnionTable.get();
  }

  static String groups(List<String> groups) {
    StringBuilder q = new StringBuilder();
    for (String g : groups) {
      q.append(q.length() == 0 ? "" : "&").append("group=").append(URLEncoder.encode(g, StandardCharsets.UTF_8));
    }
    return q.toString();
  }

  static HttpResponse<String> get(URI uri) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @ParameterizedTest(name = "index in {0}")
  @ValueSource(strings = {"files", "redis"})
  void everyPageOfAUnionThroughServeIsTheMergeOfTheGroupsWalks(String store) throws Exception {
    String spec = store.equals("files") ? table.files("byString") : table.redis("byString");
    try (PageServer server = PageServer.start(
        ServeConfig.of(spec, UnionTable.TABLE, "byString", table.local.connection()).withPort(0))) {
      URI base = server.url();
      int size = 6;
      int pages = 0;
      for (List<String> union : UNIONS) {
        for (boolean forward : new boolean[] {true, false}) {
          List<Map<String, AttributeValue>> merged =
              RatingsGroups.merged(table.client, UnionTable.TABLE, "byString", "SK", KeyType.S, union, forward);
          String order = forward ? "asc" : "desc";
          // the walk by numbered links, then the walk by signed cursors (links.nextCursor)
          for (String link : List.of("next", "nextCursor")) {
            String next = "1?" + groups(union) + "&size=" + size + "&order=" + order;
            for (int n = 1; next != null; n++) {
              HttpResponse<String> r = get(base.resolve("/v1/union/pages/" + next));
              assertThat(r.body(), r.statusCode(), is(200));
              JsonNode page = JSON.readTree(r.body());
              List<String> got = new ArrayList<>();
              for (JsonNode item : page.get("items")) {
                got.add(item.get("PK").get("S").asText() + "|" + item.get("SK").get("S").asText());
              }
              List<Map<String, AttributeValue>> want =
                  merged.subList((n - 1) * size, Math.min(merged.size(), n * size));
              assertThat(store + " " + union + " page " + n + " " + order + " by " + link, got,
                  equalTo(PageWalk.keys(want)));
              assertThat(page.get("count").asLong(), is((long) merged.size()));
              assertThat(page.has("next"), is(page.get("links").has("next")));
              next = page.get("links").has(link) ? page.get("links").get(link).asText() : null;
              pages++;
            }
          }
          assertThat(pages > 0, is(true));
        }
      }
      String ratings = groups(UNIONS.get(0));
      assertThat(get(base.resolve("/v1/union/pages/99?" + ratings + "&size=20")).statusCode(), is(404));
      assertThat(get(base.resolve("/v1/union/pages/1?group=a&group=a")).statusCode(), is(400));
      assertThat(get(base.resolve("/v1/union/pages/1?size=20")).statusCode(), is(400));
      assertThat(get(base.resolve("/v1/union/pages/1?" + ratings + "&size=2&size=3")).statusCode(), is(400));

      String cursor = JSON.readTree(get(base.resolve("/v1/union/pages/1?" + ratings + "&size=20")).body())
          .get("next").asText();
      assertThat(get(base.resolve("/v1/union/pages/next?" + ratings + "&cursor=" + cursor)).statusCode(), is(200));
      char c = cursor.charAt(5);
      String altered = cursor.substring(0, 5) + (c == 'A' ? 'B' : 'A') + cursor.substring(6);
      for (String bad : List.of(ratings + "&cursor=" + altered, groups(UNIONS.get(1)) + "&cursor=" + cursor,
          ratings + "&cursor=%25%25", ratings, ratings + "&cursor=" + cursor + "&size=20")) {
        HttpResponse<String> refused = get(base.resolve("/v1/union/pages/next?" + bad));
        assertThat(bad, refused.statusCode(), is(400));
        assertThat(bad, JSON.readTree(refused.body()).get("error").asText(), not(equalTo("")));
      }

      HttpResponse<String> web = get(base.resolve("/union?" + groups(UNIONS.get(1)) + "&page=2&size=4"));
      assertThat(web.statusCode(), is(200));
      assertThat(web.body(), containsString("value=\"&lt;b&gt;\" checked"));
      assertThat(web.body(), not(containsString("<b>")));
      assertThat(web.body(), containsString("page 2 of"));
      assertThat(web.body(), containsString("href=\"/union?group=..&amp;group=%3Cb%3E&amp;group=a%2Fb"));
    }
  }
}
