package io.pagemark.pipelines.serve;

import static io.pagemark.pipelines.serve.ServeFixture.get;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import com.fasterxml.jackson.databind.JsonNode;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.pipelines.serve.ServeFixture.Reply;
import io.pagemark.server.http.PageServer;
import io.pagemark.server.http.ServeConfig;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Clients keep paging while a new backfill of a grown group is published under the server: no request fails, every
 * response is wholly of one build (its count, pages and last link are that build's, its items start where that
 * build's page starts), requests pinned to the old build keep getting it, and the server moves to the new build.
 */
@ExtendWith(DynamoDbLocalExtension.class)
class ServePublishIT {
  static final String TABLE = "servePublish";
  static final String GROUP = "growing";
  static final int BEFORE = 45;
  static final int AFTER = 65;
  static final int SIZE = 10;

  @Test
  void concurrentClientsDuringAPublishNeverFailAndNeverMixTwoBuilds(DynamoDbLocal local) throws Exception {
    DynamoDbClient client = local.client();
    TrickyTable.create(client, TABLE);
    SampleComments.load(client, TABLE, items(0, BEFORE), 2, null);
    Path index = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "serve-publish")
        .resolve("index");
    assertThat(backfill(local, index).code(), is(0));

    try (PageServer server = PageServer.start(ServeConfig.of(index.toString(), TABLE, ServeFixture.GSI,
        local.connection()).withPort(0).withRefresh(Duration.ofMillis(200)))) {
      JsonNode first = get(server.url().resolve("v1/groups/" + GROUP + "/pages/1?size=" + SIZE)).json();
      String oldBuild = first.get("build").asText();
      Map<String, Integer> countOf = new ConcurrentHashMap<>(Map.of(oldBuild, BEFORE));
      AtomicBoolean stop = new AtomicBoolean();
      List<String> problems = Collections.synchronizedList(new ArrayList<>());
      Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
      AtomicInteger pinnedOk = new AtomicInteger();
      AtomicReference<String> newBuildId = new AtomicReference<>(); // set once the second build is published
      CountDownLatch sawNewBuild = new CountDownLatch(100);
      List<Thread> clients = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        boolean pinned = t == 3;
        Random random = new Random(t);
        clients.add(new Thread(() -> {
          while (!stop.get() && problems.size() < 10) {
            int n = 1 + random.nextInt(5);
            URI uri = server.url().resolve("v1/groups/" + GROUP + "/pages/" + n + "?size=" + SIZE
                + (pinned ? "&build=" + oldBuild : ""));
            try {
              Reply r = get(uri);
              if (r.status() != 200) {
                problems.add(uri + " answered " + r.status() + ": " + r.body());
                continue;
              }
              check(r.json(), n, countOf, problems);
              String build = r.json().get("build").asText();
              seen.computeIfAbsent(build, b -> new AtomicInteger()).incrementAndGet();
              if (build.equals(newBuildId.get())) {
                sawNewBuild.countDown();
              }
              if (pinned) {
                if (build.equals(oldBuild)) {
                  pinnedOk.incrementAndGet();
                } else {
                  problems.add(uri + " is pinned to " + oldBuild + " but answered from " + build);
                }
              }
            } catch (Exception e) {
              problems.add(uri + " failed: " + e);
            }
          }
        }));
      }
      clients.forEach(Thread::start);

      SampleComments.load(client, TABLE, items(BEFORE, AFTER), 2, null);
      BackfillIT.Result second = backfill(local, index);
      assertThat(second.err(), second.code(), is(0));
      String newBuild = Files.readString(index.resolve("CURRENT")).trim();
      assertThat(newBuild, not(equalTo(oldBuild)));
      countOf.put(newBuild, AFTER);
      newBuildId.set(newBuild);
      boolean moved = sawNewBuild.await(60, TimeUnit.SECONDS);
      stop.set(true);
      for (Thread c : clients) {
        c.join(30_000);
      }
      assertThat(problems, empty());
      assertThat("100 answers from the new build " + newBuild + " within 60 s", moved, is(true));
      assertThat(seen.get(oldBuild).get(), greaterThan(0));
      assertThat(pinnedOk.get(), greaterThan(0));
      Reply after = get(server.url().resolve("v1/groups/" + GROUP + "?size=" + SIZE));
      assertThat(after.json().get("build").asText(), equalTo(newBuild));
      assertThat(after.json().get("count").asInt(), is(AFTER));
    } finally {
      client.close();
    }
  }

  /** A response is one build's: its count, pages and last link are that build's; its items start at its page. */
  static void check(JsonNode p, int n, Map<String, Integer> countOf, List<String> problems) {
    String build = p.get("build").asText();
    Integer count = countOf.get(build);
    if (count == null) {
      // the new build can answer before the test learns its id from CURRENT: it must be the grown group
      count = AFTER;
    }
    long pages = (count + SIZE - 1) / SIZE;
    String what = "page " + n + " of build " + build;
    if (p.get("count").asInt() != count || p.get("pages").asLong() != pages
        || !p.get("links").get("last").asText().startsWith(pages + "?")
        || !p.get("links").get("last").asText().endsWith("&build=" + build)) {
      problems.add(what + " mixes builds: " + p.get("count") + " items, " + p.get("pages") + " pages, last link "
          + p.get("links").get("last"));
    }
    JsonNode items = p.get("items");
    for (int i = 0; i < items.size(); i++) {
      String sk = items.get(i).get("SK").get("S").asText();
      if (!sk.equals(sortKey((n - 1) * SIZE + i))) {
        problems.add(what + " item " + i + " is " + sk + ", expected " + sortKey((n - 1) * SIZE + i));
        return;
      }
    }
    boolean lastOfBuild = n == pages;
    if (!lastOfBuild && items.size() != SIZE) {
      problems.add(what + " holds " + items.size() + " items");
    }
  }

  static BackfillIT.Result backfill(DynamoDbLocal local, Path index) {
    return BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + ServeFixture.GSI, "--output=" + index);
  }

  /** Items {@code from..to-1} of the group; their sort keys grow with their number, so new ones land at its end. */
  static List<Map<String, AttributeValue>> items(int from, int to) {
    List<Map<String, AttributeValue>> items = new ArrayList<>();
    for (int i = from; i < to; i++) {
      Map<String, AttributeValue> m = new HashMap<>();
      m.put("PK", AttributeValue.fromS("item-" + i));
      m.put("SK", AttributeValue.fromS(sortKey(i)));
      m.put("PK2", AttributeValue.fromS(GROUP));
      items.add(m);
    }
    return items;
  }

  static String sortKey(int i) {
    return String.format("g%03d", i);
  }
}
