package io.pagemark.pipelines.demo;

import io.pagemark.server.http.PageServer;
import io.pagemark.server.http.ServeConfig;
import io.pagemark.testing.DynamoDbLocal;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code pagemark demo --serve}: after the demo, serves its index with {@code pagemark serve} over the demo's
 * DynamoDB Local, prints the URLs to open, and blocks until Ctrl-C or SIGTERM, which stop the server and DynamoDB
 * Local.
 */
final class DemoServer {
  private DemoServer() {}

  static void serve(DynamoDbLocal local, Path index, String hotGroup, int pageSize, int port, PrintStream out)
      throws IOException, InterruptedException {
    ServeConfig config = ServeConfig.of(index.toString(), SampleComments.TABLE, SampleComments.GSI,
        local.connection()).withPort(port).withPageSizes(pageSize, ServeConfig.DEFAULT_MAX_PAGE_SIZE);
    PageServer server = PageServer.start(config);
    // The JVM runs shutdown hooks, not the demo's try-with-resources, on SIGTERM: stop both here.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      local.close();
    }, "pagemark-demo-stop"));
    out.printf("%ndemo: serving the index at %s (Ctrl-C stops the server and DynamoDB Local)%n", server.url());
    out.printf("  web page:  %sgroups/%s?page=2%n", server.url(), hotGroup);
    out.printf("  JSON:      %sv1/groups/%s/pages/2%n", server.url(), hotGroup);
    out.printf("  OpenAPI:   %sopenapi.json   metrics: %smetrics%n", server.url(), server.url());
    out.flush();
    server.awaitStop();
  }
}
