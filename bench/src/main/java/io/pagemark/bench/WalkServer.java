package io.pagemark.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.pagemark.pipelines.cli.DynamoJson;
import io.pagemark.pipelines.demo.SampleComments;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * The baseline of the serve benchmark: an offset layer with no index, on the same JDK HTTP server and thread count
 * as {@code pagemark serve}. {@code GET /pages/N} walks the group from page 1 with {@code LastEvaluatedKey}, one
 * Query per page of 20, and answers page N's items in DynamoDB JSON.
 */
final class WalkServer implements AutoCloseable {
  private final HttpServer http;
  private final ExecutorService executor;
  private final DynamoDbClient client;
  private final String group;

  WalkServer(DynamoDbClient client, String group, int threads) throws IOException {
    this.client = client;
    this.group = group;
    this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    this.executor = Executors.newFixedThreadPool(threads);
    http.createContext("/pages/", this::handle);
    http.setExecutor(executor);
    http.start();
  }

  URI url(long page) {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/pages/" + page);
  }

  private void handle(HttpExchange x) throws IOException {
    try {
      long page = Long.parseLong(x.getRequestURI().getPath().substring("/pages/".length()));
      List<Map<String, AttributeValue>> items = walk(page, Sizes.PAGE_SIZE);
      List<String> json = new ArrayList<>();
      items.forEach(i -> json.add(DynamoJson.item(i)));
      byte[] body = ("{\"page\":" + page + ",\"items\":[" + String.join(",", json) + "]}")
          .getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", "application/json");
      x.sendResponseHeaders(items.isEmpty() ? 404 : 200, body.length);
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    } catch (RuntimeException e) {
      x.sendResponseHeaders(500, -1);
    } finally {
      x.close();
    }
  }

  /** Page {@code page} as DynamoDB's own cursor walk reaches it. */
  List<Map<String, AttributeValue>> walk(long page, int size) {
    Map<String, AttributeValue> from = null;
    List<Map<String, AttributeValue>> items = List.of();
    for (long n = 1; n <= page; n++) {
      List<Map<String, AttributeValue>> got = new ArrayList<>();
      do {
        QueryRequest.Builder b = QueryRequest.builder().tableName(SampleComments.TABLE).indexName(SampleComments.GSI)
            .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(group)))
            .limit(size - got.size());
        if (from != null) {
          b.exclusiveStartKey(from);
        }
        QueryResponse r = client.query(b.build());
        got.addAll(r.items());
        from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      } while (from != null && got.size() < size);
      items = got;
      if (from == null && n < page) {
        return List.of();
      }
    }
    return items;
  }

  @Override
  public void close() {
    http.stop(0);
    executor.shutdownNow();
  }
}
