package io.pagemark.dynamo;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import io.pagemark.format.s3.S3Location;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every AWS client pagemark configures survives a server that drops connections: the JDK keeps up to five idle
 * connections per host, all of which may be dead after a pause, and the SDK's default of at most three retries
 * would fail on them (seen in CI as "Unexpected end of file from server" from s3proxy during a commit).
 */
class TransportRetryTest {
  @Test
  void anS3PutSurvivesSixDroppedConnectionsInARow() throws Exception {
    int dropped = 6;
    AtomicInteger requests = new AtomicInteger();
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread t = new Thread(() -> serve(server, dropped, requests), "dropping-server");
      t.setDaemon(true);
      t.start();
      String endpoint = "http://127.0.0.1:" + server.getLocalPort();
      try (S3Client s3 = S3Location.parse("s3://bucket/index?endpoint=" + endpoint).client()) {
        s3.putObject(b -> b.bucket("bucket").key("index/BUILD"), RequestBody.fromString("a body: not retried by the JDK"));
      }
    }
    assertThat("the put went on past every dropped connection", requests.get(), greaterThan(dropped));
  }

  /** Reads each request's head; closes the connection without an answer for the first {@code dropped}. */
  private static void serve(ServerSocket server, int dropped, AtomicInteger requests) {
    while (!server.isClosed()) {
      try (Socket s = server.accept()) {
        readHead(s.getInputStream());
        if (requests.incrementAndGet() <= dropped) {
          continue; // closing now is what a server's idle timeout does to a pooled connection
        }
        s.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        return;
      }
      head.write(b);
    }
  }
}
