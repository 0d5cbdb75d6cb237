package io.pagemark.pipelines.serve;

import static io.pagemark.pipelines.serve.ServeFixture.get;
import static io.pagemark.pipelines.serve.ServeFixture.send;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.JsonNode;
import io.pagemark.pipelines.PageWalk;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.cli.DynamoJson;
import io.pagemark.pipelines.serve.ServeFixture.Reply;
import io.pagemark.server.http.PageServer;
import io.pagemark.server.http.ServeConfig;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.LocalProcess;
import io.pagemark.testing.RedisServer;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.MigrateParams;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code pagemark serve} over HTTP against DynamoDB Local: every page of hostile groups in both orders equals
 * DynamoDB's own walk, links included; errors have the documented statuses and bodies; conditional requests; the web
 * page; health, metrics and OpenAPI; DynamoDB failing gives 503 and the server lives on.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith({DynamoDbLocalExtension.class, RedisExtension.class})
class ServeIT {
  ServeFixture fixture;
  PageServer server;
  URI base;

  @BeforeAll
  void start() throws Exception {
    fixture = ServeFixture.get();
    server = fixture.serve(fixture.index, Duration.ofSeconds(2));
    base = server.url();
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** A group as one path segment, encoded here independently of the server's own encoder. */
  static String segment(String group) {
    if (group.chars().allMatch(c -> c == '.')) {
      return "%2E".repeat(group.length());
    }
    return URLEncoder.encode(group, StandardCharsets.UTF_8).replace("+", "%20").replace("*", "%2A");
  }

  URI page(String group, long n, String query) {
    return base.resolve("v1/groups/" + segment(group) + "/pages/" + n + (query.isEmpty() ? "" : "?" + query));
  }

  @Test
  void everyPageOfHostileGroupsInBothOrdersIsDynamoDbsPageAndLinksWalkThem() throws Exception {
    Map<String, Integer> counts = fixture.counts();
    Set<String> groups = new LinkedHashSet<>(TrickyTable.HOSTILE_GROUPS);
    groups.addAll(ServeFixture.EXTRA_GROUPS);
    groups.add("ties");
    groups.add("utf");
    int pagesRead = 0;
    for (String group : groups) {
      int size = group.equals("ties") || group.equals("utf") ? 7 : 3;
      for (String order : List.of("asc", "desc")) {
        List<List<Map<String, AttributeValue>>> walk =
            PageWalk.pages(fixture.client, ServeFixture.TABLE, ServeFixture.GSI, group, size, order.equals("asc"));
        assertThat(group, walk.size(), greaterThan(0));
        URI at = page(group, 1, "size=" + size + "&order=" + order);
        String build = null;
        for (int n = 1; n <= walk.size(); n++) {
          String what = "group " + group + " page " + n + " " + order;
          Reply r = get(at);
          assertThat(what + ": " + r.body(), r.status(), is(200));
          assertThat(r.header("Content-Type"), equalTo("application/json"));
          JsonNode p = r.json();
          assertThat(what, p.get("group").asText(), equalTo(group));
          assertThat(what, p.get("page").asLong(), is((long) n));
          assertThat(what, p.get("pageSize").asInt(), is(size));
          assertThat(what, p.get("order").asText(), equalTo(order));
          assertThat(what, p.get("count").asLong(), is((long) counts.get(group)));
          assertThat(what, p.get("pages").asLong(), is((long) walk.size()));
          assertThat(what, p.get("stale").asBoolean(), is(false));
          assertThat(what, p.get("items"), equalTo(asJson(walk.get(n - 1))));
          build = build == null ? p.get("build").asText() : build;
          assertThat(what, p.get("build").asText(), equalTo(build));
          JsonNode links = p.get("links");
          String pin = "?size=" + size + "&order=" + order + "&build=" + build;
          assertThat(what, links.get("first").asText(), equalTo("1" + pin));
          assertThat(what, links.get("last").asText(), equalTo(walk.size() + pin));
          assertThat(what, links.path("prev").asText(null), equalTo(n > 1 ? (n - 1) + pin : null));
          assertThat(what, links.path("next").asText(null), equalTo(n < walk.size() ? (n + 1) + pin : null));
          if (links.has("next")) {
            at = at.resolve(links.get("next").asText());
          }
          pagesRead++;
        }
        Reply past = get(page(group, walk.size() + 1, "size=" + size + "&order=" + order));
        assertThat(past.status(), is(404));
        assertThat(past.json().get("error").asText(),
            containsString("page " + (walk.size() + 1) + " is out of range"));
      }
      Reply g = get(base.resolve("v1/groups/" + segment(group) + "?size=" + size));
      assertThat(g.body(), g.status(), is(200));
      assertThat(g.json().get("count").asLong(), is((long) counts.get(group)));
      assertThat(g.json().get("pages").asLong(), is((long) (counts.get(group) + size - 1) / size));
    }
    assertThat(pagesRead, greaterThan(200));
  }

  @Test
  void aRedisIndexServesTheSamePagesAndPinsItsBuild() throws Exception {
    try (PageServer redis = fixture.serve(fixture.redisIndex, Duration.ofSeconds(2))) {
      for (String group : List.of("ties", "../x", "e\u0301", "\u00e9", "%2e%2e", "new\nline")) {
        for (String order : List.of("asc", "desc")) {
          List<List<Map<String, AttributeValue>>> walk =
              PageWalk.pages(fixture.client, ServeFixture.TABLE, ServeFixture.GSI, group, 5, order.equals("asc"));
          for (int n = 1; n <= walk.size(); n++) {
            URI uri = redis.url().resolve("v1/groups/" + segment(group) + "/pages/" + n + "?size=5&order=" + order);
            Reply r = get(uri);
            assertThat(uri + ": " + r.body(), r.status(), is(200));
            assertThat(uri.toString(), r.json().get("items"), equalTo(asJson(walk.get(n - 1))));
            if (n == 1) {
              Reply pinned = get(uri.resolve(r.json().get("links").get("last").asText()));
              assertThat(pinned.body(), pinned.status(), is(200));
              assertThat(pinned.json().get("items"), equalTo(asJson(walk.get(walk.size() - 1))));
            }
          }
        }
      }
      assertThat(get(redis.url().resolve("v1/groups/ties/pages/1?build=nope")).status(), is(404));
      assertThat(get(redis.url().resolve("groups/ties?page=2")).status(), is(200));
    }
  }

  /** Items as DynamoDB JSON, as the project's CLI prints them. */
  static JsonNode asJson(List<Map<String, AttributeValue>> items) throws Exception {
    List<String> json = new ArrayList<>();
    items.forEach(i -> json.add(DynamoJson.item(i)));
    return ServeFixture.JSON.readTree("[" + String.join(",", json) + "]");
  }

  @Test
  void badInputIs400UnknownThingsAre404AndEveryErrorIsJson() throws Exception {
    String ties = "v1/groups/ties";
    Object[][] cases = {
        {ties + "/pages/0", 400, "page must be a whole number from 1"},
        {ties + "/pages/-1", 400, "page must be a whole number from 1"},
        {ties + "/pages/x", 400, "not \"x\""},
        {ties + "/pages/99999999999999999999", 400, "page must be"},
        {ties + "/pages/1?size=0", 400, "size must be a whole number from 1 to 1000"},
        {ties + "/pages/1?size=1001", 400, "size must be"},
        {ties + "/pages/1?size=1e3", 400, "size must be"},
        {ties + "/pages/1?order=up", 400, "order must be asc or desc"},
        {ties + "/pages/1?order=asc&order=desc", 400, "given twice"},
        {ties + "/pages/1?build=", 400, "build must name a build"},
        {"v1/groups/%FF/pages/1", 400, "does not percent-decode to UTF-8"},
        {"v1/groups/no%20such%20group/pages/1", 404, "group {\"S\":\"no such group\"} is not in build"},
        {ties + "/pages/1000", 404, "is out of range"},
        {ties + "/pages/1?build=20000101T000000Z-0000", 404, "build \"20000101T000000Z-0000\" is not in the index"},
        {ties + "/pages/1?build=..%2F..%2Fetc", 404, "is not in the index"},
        {"v1/groups/no%20such%20group", 404, "is not in build"},
        {"v1/nothing", 404, "no such resource"},
        {"v1/groups/ties/pages/1/extra", 404, "no such resource"},
    };
    for (Object[] c : cases) {
      Reply r = get(base.resolve((String) c[0]));
      assertThat(c[0] + ": " + r.body(), r.status(), is((int) c[1]));
      assertThat(c[0] + "", r.header("Content-Type"), equalTo("application/json"));
      JsonNode e = r.json();
      assertThat(c[0] + "", e.get("status").asInt(), is((int) c[1]));
      assertThat(c[0] + "", e.get("error").asText(), containsString((String) c[2]));
      assertThat(c[0] + "", r.header("Cache-Control"), equalTo("no-store"));
    }
    // The JDK server refuses a request line that is no URI (a bad escape) itself: 400, before any handler runs.
    String raw = ServeFixture.raw(base, "GET /v1/groups/%zz/pages/1 HTTP/1.1");
    assertThat(raw, raw.startsWith("HTTP/1.1 400 "), is(true));
    String empty = ServeFixture.raw(base, "GET /v1/groups//pages/1 HTTP/1.1"); // java.net.URI drops the empty segment
    assertThat(empty, empty.startsWith("HTTP/1.1 400 "), is(true));
    assertThat(empty, containsString("the group is empty"));
    Reply patch = send(base.resolve(ties + "/pages/1"), "PATCH");
    assertThat(patch.status(), is(405));
    assertThat(patch.header("Allow"), equalTo("GET, HEAD"));
    Reply head = send(base.resolve(ties + "/pages/1"), "HEAD");
    assertThat(head.status(), is(200));
    assertThat(head.body(), equalTo(""));
    Reply stillUp = get(base.resolve("healthz"));
    assertThat(stillUp.status(), is(200));
  }

  @Test
  void pagesCarryAnEntityTagAndAConditionalRequestIsAnsweredWithoutAQuery() throws Exception {
    Reply first = get(page("ties", 2, "size=10"));
    assertThat(first.status(), is(200));
    String build = first.json().get("build").asText();
    String etag = first.header("ETag");
    assertThat(etag, equalTo("\"p." + build + ".asc.10.2\""));
    assertThat(first.header("Cache-Control"), equalTo("public, max-age=2"));
    long queries = metric("pagemark_dynamodb_requests_total");
    Reply again = get(page("ties", 2, "size=10"), "If-None-Match", etag);
    assertThat(again.status(), is(304));
    assertThat(again.body(), equalTo(""));
    assertThat(again.header("ETag"), equalTo(etag));
    assertThat("a 304 costs no Query", metric("pagemark_dynamodb_requests_total"), is(queries));
    Reply otherPage = get(page("ties", 3, "size=10"), "If-None-Match", etag);
    assertThat(otherPage.status(), is(200));
    Reply pinned = get(page("ties", 2, "size=10&build=" + build));
    assertThat(pinned.header("Cache-Control"), equalTo("public, max-age=300"));
    assertThat(pinned.json().get("items"), equalTo(first.json().get("items")));
    Reply group = get(base.resolve("v1/groups/ties?size=10"));
    assertThat(get(base.resolve("v1/groups/ties?size=10"), "If-None-Match", group.header("ETag")).status(), is(304));
  }

  @Test
  void serverTimingSplitsDynamoDbsTimeFromTheServersOwn() throws Exception {
    Reply page = get(page("ties", 2, "size=10"));
    String timing = page.header("Server-Timing");
    assertThat(timing, matchesPattern("dynamodb;dur=\\d+\\.\\d{3}, sdk;dur=\\d+\\.\\d{3}, app;dur=\\d+\\.\\d{3}"));
    assertThat("the page's Query took some time", timing.startsWith("dynamodb;dur=0.000,"), is(false));
    assertThat("the SDK built and parsed it", timing, not(containsString("sdk;dur=0.000")));
    Reply notModified = get(page("ties", 2, "size=10"), "If-None-Match", page.header("ETag"));
    assertThat(notModified.status(), is(304));
    String noQuery = "dynamodb;dur=0.000, sdk;dur=0.000, app;dur=";
    assertThat("a 304 sends no Query", notModified.header("Server-Timing"), startsWith(noQuery));
    assertThat(get(base.resolve("healthz")).header("Server-Timing"), startsWith(noQuery));
  }

  @Test
  void theWebPageShowsTheItemsPageNofPAndPlainLinks() throws Exception {
    String group = "<b>&amp;</b>";
    int count = fixture.counts().get(group);
    List<List<Map<String, AttributeValue>>> walk =
        PageWalk.pages(fixture.client, ServeFixture.TABLE, ServeFixture.GSI, group, 2, false);
    Reply r = get(base.resolve("groups/" + segment(group) + "?page=2&size=2&order=desc"));
    assertThat(r.body(), r.status(), is(200));
    assertThat(r.header("Content-Type"), equalTo("text/html; charset=utf-8"));
    String html = r.body();
    assertThat(html, containsString("page 2 of " + walk.size() + "<"));
    assertThat(html, containsString("<link rel=\"canonical\" href=\"/groups/%3Cb%3E%26amp%3B%3C%2Fb%3E"
        + "?page=2&amp;size=2&amp;order=desc\">"));
    assertThat(html, not(containsString("<b>&amp;</b>")));
    assertThat(html, containsString("&lt;b&gt;&amp;amp;&lt;/b&gt;"));
    assertThat(html, not(containsString("<script>")));
    assertThat(html, containsString("&lt;script&gt;alert("));
    for (Map<String, AttributeValue> item : walk.get(1)) {
      assertThat(html, containsString("<td>" + item.get("PK").s() + "</td>"));
    }
    assertThat(html, containsString("href=\"?page=1&amp;size=2&amp;order=desc\""));
    assertThat(html, containsString("href=\"?page=" + walk.size() + "&amp;size=2&amp;order=desc\""));
    assertThat(count, greaterThan(4));

    Reply home = get(base);
    assertThat(home.status(), is(200));
    assertThat(home.body(), containsString("<a href=\"/groups/%3Cb%3E%26amp%3B%3C%2Fb%3E\">&lt;b&gt;&amp;amp;&lt;/b&gt;"
        + "</a></td><td>" + count + "</td>"));
    assertThat(home.body(), containsString("<a href=\"/groups/..%2Fx\">../x</a>"));
    Reply missing = get(base.resolve("groups/nope?page=1"));
    assertThat(missing.status(), is(404));
    assertThat(missing.header("Content-Type"), equalTo("text/html; charset=utf-8"));
    assertThat(get(base.resolve("groups/ties?page=0")).status(), is(400));
  }

  @Test
  void healthMetricsAndOpenApiDescribeTheServer() throws Exception {
    Reply health = get(base.resolve("healthz"));
    assertThat(health.status(), is(200));
    assertThat(health.json().get("status").asText(), equalTo("ok"));
    get(page("utf", 1, ""));
    Reply metrics = get(base.resolve("metrics"));
    assertThat(metrics.header("Content-Type"), equalTo("text/plain; version=0.0.4; charset=utf-8"));
    assertThat(metrics.body(), matchesPattern("(?s).*pagemark_http_requests_total\\{route=\"page\",status=\"200\"} "
        + "[1-9][0-9]*\n.*"));
    assertThat(metrics.body(),
        containsString("pagemark_http_request_duration_seconds_bucket{route=\"page\",le=\"+Inf\"}"));
    assertThat(metric("pagemark_pages_served_total"), greaterThan(0L));
    assertThat(metric("pagemark_stale_pages_total"), is(0L));
    assertThat(metrics.body(), matchesPattern("(?s).*pagemark_dynamodb_read_capacity_units_total [0-9.]+\n.*"));
    JsonNode api = get(base.resolve("openapi.json")).json();
    assertThat(api.get("openapi").asText(), equalTo("3.0.3"));
    assertThat(api.at("/components/parameters/size/schema/maximum").asInt(), is(1000));
    List<String> paths = new ArrayList<>();
    api.get("paths").fieldNames().forEachRemaining(paths::add);
    assertThat(paths, equalTo(List.of("/v1/groups/{group}/pages/{page}", "/v1/groups/{group}", "/v1/union/pages/{page}",
        "/v1/union/pages/next",
        "/groups/{group}", "/",
        "/openapi.json", "/healthz", "/metrics")));
  }

  long metric(String name) throws Exception {
    for (String line : get(base.resolve("metrics")).body().split("\n")) {
      if (line.startsWith(name + " ")) {
        return (long) Double.parseDouble(line.substring(name.length() + 1));
      }
    }
    throw new AssertionError("no metric " + name);
  }

  @Test
  void whenDynamoDbFailsPagesAre503WithRetryAfterAndTheServerLivesOn() throws Exception {
    String nowhere = "http://127.0.0.1:" + LocalProcess.freePort();
    try (PageServer broken = PageServer.start(ServeConfig.of(fixture.index.toString(), ServeFixture.TABLE,
        ServeFixture.GSI, new io.pagemark.dynamo.DynamoConnection(nowhere, null)).withPort(0))) {
      Reply r = get(broken.url().resolve("v1/groups/ties/pages/1"));
      assertThat(r.body(), r.status(), is(503));
      assertThat(r.header("Retry-After"), equalTo("5"));
      assertThat(r.json().get("error").asText(), containsString("cannot read from DynamoDB at " + nowhere));
      assertThat(get(broken.url().resolve("groups/ties")).status(), is(503));
      assertThat(get(broken.url().resolve("v1/groups/ties")).status(), is(200));
    }
    try (PageServer wrongTable = PageServer.start(ServeConfig.of(fixture.index.toString(), "noSuchTable",
        ServeFixture.GSI, fixture.local.connection()).withPort(0))) {
      Reply r = get(wrongTable.url().resolve("v1/groups/ties/pages/1"));
      assertThat(r.status(), is(503));
      assertThat(r.json().get("error").asText(), containsString("table noSuchTable or its index byString does not"
          + " exist"));
    }
    assertThat(get(base.resolve("healthz")).status(), is(200));
    assertThat(get(page("ties", 1, "")).json().path("error").isMissingNode(), is(true));
    assertThat(get(page("ties", 1, "")).header("Retry-After"), nullValue());
  }

  /**
   * A copy of the Redis index on a redis-server of its own, which then dies: pages, groups and web pages are 503 with
   * Retry-After (never a 500), and the server keeps answering.
   */
  @Test
  void whenTheIndexStoreFailsPagesAre503WithRetryAfter(RedisServer shared) throws Exception {
    String prefix = ServeFixture.REDIS_PREFIX;
    try (RedisServer own = RedisServer.start()) {
      try (Jedis from = shared.client()) {
        byte[][] keys = from.keys((prefix + "*").getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        assertThat("the fixture's Redis index has keys", keys.length, greaterThan(0));
        from.migrate("127.0.0.1", own.port(), 0, 10_000, MigrateParams.migrateParams().copy(), keys);
      }
      String spec = own.uri() + "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);
      try (PageServer server = fixture.serve(spec, Duration.ofSeconds(2))) {
        assertThat(get(server.url().resolve("v1/groups/ties/pages/1")).status(), is(200));
        own.kill();
        for (String path : List.of("v1/groups/ties/pages/2", "v1/groups/ties", "groups/ties?page=2")) {
          Reply r = get(server.url().resolve(path));
          assertThat(path + ": " + r.body(), r.status(), is(503));
          assertThat(path, r.header("Retry-After"), equalTo("5"));
        }
        Reply health = get(server.url().resolve("healthz"));
        assertThat(health.body(), health.status(), not(is(500)));
      }
    }
  }
}
