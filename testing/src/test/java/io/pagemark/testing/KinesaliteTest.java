package io.pagemark.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/** kinesalite as the tests share it: it survives clients that vanish mid-request, and holds many streams. */
class KinesaliteTest {
  @Test
  void aClientThatDisconnectsInTheMiddleOfARequestDoesNotEndIt(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("kinesalite.log");
    try (Kinesalite k = Kinesalite.start(0, log)) {
      for (int i = 0; i < 3; i++) {
        // what a client killed while sending a PutRecords body leaves behind: headers, and half a body
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), k.port())) {
          OutputStream out = s.getOutputStream();
          out.write(("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.1\r\n"
              + "X-Amz-Target: Kinesis_20131202.PutRecords\r\nContent-Length: 4000\r\n\r\n{\"Records\":[")
              .getBytes(StandardCharsets.US_ASCII));
          out.flush();
        }
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (dropped(log) < 3 && k.isAlive() && System.nanoTime() < deadline) {
        Thread.sleep(50); // a poll: the loop checks the outcome
      }
      assertThat(LocalProcess.tail(log, 20), k.isAlive(), is(true));
      assertThat(LocalProcess.tail(log, 20), containsString(
          "a client disconnected in the middle of a request; request dropped"));
      assertThat(dropped(log), is(3L));
      k.ping();
      k.createStream("afterwards", 1);
    }
  }

  private static long dropped(Path log) {
    return LocalProcess.tail(log, 100).lines().filter(l -> l.endsWith("request dropped")).count();
  }

  @Test
  void itHoldsMoreShardsThanKinesisAllowsAnAccountByDefault(@TempDir Path dir) throws Exception {
    try (Kinesalite k = Kinesalite.start(0, dir.resolve("kinesalite.log")); KinesisClient c = k.client()) {
      for (int i = 0; i < 4; i++) {
        k.createStream("s" + i, 4);
      }
      int shards = 0;
      for (int i = 0; i < 4; i++) {
        String name = "s" + i;
        shards += c.listShards(b -> b.streamName(name)).shards().size();
      }
      assertThat(shards, is(16));
    }
  }
}
