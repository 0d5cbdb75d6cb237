package io.pagemark.pipelines.serve;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.server.http.PageServer;
import io.pagemark.server.http.ServeConfig;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.RedisServer;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.RedisExtension;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What the serve tests share: the tricky table (ties, UTF-8 order, hostile group keys, plus a group named
 * {@code %2e%2e}) on the JVM's DynamoDB Local, its byString index built once by the backfill CLI into files and into
 * the JVM's redis-server, servers over it, and a small HTTP client.
 */
final class ServeFixture {
  static final String TABLE = "serveTricky";
  static final String GSI = TrickyTable.BY_STRING;
  /** Groups of the tricky table, besides its own, that the serve tests page through. */
  static final List<String> EXTRA_GROUPS = List.of("%2e%2e", "%252e", "+plus sign+", "<b>&amp;</b>");

  /** The key prefix of the fixture's index in the JVM's redis-server. */
  static final String REDIS_PREFIX = "serve-it:";

  private static ServeFixture instance;

  final DynamoDbLocal local;
  final DynamoDbClient client;
  final List<Map<String, AttributeValue>> items;
  final Path index;
  /** The same build loaded into a redis-server by the same backfill: {@code redis://...?prefix=...}. */
  final String redisIndex;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  static final ObjectMapper JSON = new ObjectMapper();

  private ServeFixture(DynamoDbLocal local, DynamoDbClient client, List<Map<String, AttributeValue>> items,
      Path index, String redisIndex) {
    this.local = local;
    this.client = client;
    this.items = items;
    this.index = index;
    this.redisIndex = redisIndex;
  }

  /** The table and its index, made by the first test that asks. */
  static synchronized ServeFixture get() throws Exception {
    if (instance == null) {
      long started = System.nanoTime();
      DynamoDbLocal local = DynamoDbLocalExtension.get();
      DynamoDbClient client = local.client();
      TrickyTable.create(client, TABLE);
      List<Map<String, AttributeValue>> items = new ArrayList<>();
      for (Map<String, AttributeValue> item : TrickyTable.items(13)) {
        // the 3 MB group of 8 KB items tests scans and 1 MB Query pages, which other tests cover; here it only costs
        if (!item.containsKey("PK2") || !item.get("PK2").s().equals("big")) {
          items.add(item);
        }
      }
      int id = 0;
      for (String g : EXTRA_GROUPS) {
        for (int i = 0; i < 9; i++) {
          Map<String, AttributeValue> m = new HashMap<>();
          m.put("PK", AttributeValue.fromS(String.format("extra-%03d", id++)));
          m.put("SK", AttributeValue.fromS(i % 3 == 0 ? "same" : "s" + i));
          m.put("PK2", AttributeValue.fromS(g));
          m.put("note", AttributeValue.fromS("<script>alert(" + i + ")</script>"));
          items.add(m);
        }
      }
      SampleComments.load(client, TABLE, items, 2, null);
      long loaded = System.nanoTime();
      // under target/, so that mvn clean removes it
      Path index = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "serve-it").resolve("index");
      RedisServer redis = RedisExtension.get();
      String prefix = REDIS_PREFIX;
      BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + GSI, "--output=" + index,
          "--redis=" + redis.uri(), "--redisKeyPrefix=" + prefix);
      assertThat(r.err(), r.code(), is(0));
      instance = new ServeFixture(local, client, items, index,
          redis.uri() + "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8));
      System.err.printf("serve tests: %,d items loaded in %.1f s, indexed in %.1f s%n", items.size(),
          (loaded - started) / 1e9, (System.nanoTime() - loaded) / 1e9);
    }
    return instance;
  }

  /** Builds (or rebuilds) the byString index of the table into {@code index}. */
  static Path backfill(DynamoDbLocal local, Path index) {
    BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + GSI, "--output=" + index);
    assertThat(r.err(), r.code(), is(0));
    return index;
  }

  /** A server on a free port over the index, with the given refresh interval. */
  PageServer serve(Path index, Duration refresh) throws IOException {
    return serve(index.toString(), refresh);
  }

  /** A server on a free port over any index spec. */
  PageServer serve(String spec, Duration refresh) throws IOException {
    return PageServer.start(ServeConfig.of(spec, TABLE, GSI, local.connection()).withPort(0).withRefresh(refresh));
  }

  /** Items per group that the byString index holds. */
  Map<String, Integer> counts() {
    return TrickyTable.expectedCounts(items, "SK");
  }

  record Reply(int status, java.net.http.HttpHeaders headers, String body) {
    JsonNode json() throws IOException {
      return JSON.readTree(body);
    }

    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }
  }

  /**
   * Sends one request line as it is (for what {@link URI} refuses to hold, such as a bad percent-escape) and returns
   * the whole response.
   */
  static String raw(URI base, String requestLine) throws IOException {
    try (java.net.Socket s = new java.net.Socket(base.getHost(), base.getPort())) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write((requestLine + "\r\nHost: " + base.getHost() + "\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.UTF_8));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static Reply get(URI uri, String... headers) throws IOException, InterruptedException {
    return send(uri, "GET", headers);
  }

  static Reply send(URI uri, String method, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
        .method(method, HttpRequest.BodyPublishers.noBody());
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.headers(), r.body());
  }
}
