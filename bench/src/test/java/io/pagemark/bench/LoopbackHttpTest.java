package io.pagemark.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LoopbackHttpTest {
  private HttpServer server;
  private ExecutorService executor;
  private final Set<Integer> clientPorts = java.util.Collections.synchronizedSet(new HashSet<>());

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    executor = Executors.newFixedThreadPool(2);
    server.createContext("/", x -> {
      clientPorts.add(x.getRemoteAddress().getPort());
      byte[] body = ("you asked for " + x.getRequestURI()).getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Server-Timing", "app;dur=0.100");
      if (x.getRequestURI().getPath().equals("/chunked")) {
        x.sendResponseHeaders(200, 0);
      } else {
        x.sendResponseHeaders(x.getRequestURI().getPath().equals("/missing") ? 404 : 200, body.length);
      }
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    });
    server.setExecutor(executor);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
    executor.shutdownNow();
  }

  private URI url(String pathAndQuery) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + pathAndQuery);
  }

  @Test
  void readsStatusHeadersAndBodyOfSeveralAnswersOnOneConnection() throws IOException {
    try (LoopbackHttp http = new LoopbackHttp(url("/"))) {
      LoopbackHttp.Answer a = http.send(http.prepare(url("/v1/groups/a%2Fb/pages/2?size=5")));
      assertThat(a.status(), is(200));
      assertThat(new String(a.body(), StandardCharsets.UTF_8), is("you asked for /v1/groups/a%2Fb/pages/2?size=5"));
      assertThat(a.headers().get("server-timing"), is("app;dur=0.100"));
      LoopbackHttp.Answer b = http.send(http.prepare(url("/missing")));
      assertThat(b.status(), is(404));
      assertThat(new String(b.body(), StandardCharsets.UTF_8), is("you asked for /missing"));
      assertThat(http.send(http.prepare(url("/"))).status(), is(200));
    }
    assertThat("one kept-alive connection for the three requests", clientPorts.size(), is(1));
  }

  @Test
  void refusesAnAnswerWithoutContentLength() throws IOException {
    try (LoopbackHttp http = new LoopbackHttp(url("/"))) {
      IOException e = assertThrows(IOException.class, () -> http.send(http.prepare(url("/chunked"))));
      assertThat(e.getMessage(), containsString("without Content-Length"));
    }
  }

  @Test
  void refusesAUrlOfAnotherServer() {
    LoopbackHttp http = new LoopbackHttp(url("/"));
    assertThrows(IllegalArgumentException.class, () -> http.prepare(URI.create("http://127.0.0.1:1/x")));
  }
}
