package io.pagemark.server.resp;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile clients: truncated frames, a 512 MB bulk length, 10,000 nested arrays, binary keys, a thousand idle
 * connections, clients that vanish mid-request or never read their replies. After each, another client is still
 * served, correctly and promptly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RespHostileTest {
  @TempDir
  static Path dir;
  RespFixture index;
  RespServer server;
  RawClient witness;

  @BeforeAll
  void start() throws Exception {
    index = new RespFixture(dir.resolve("index")).plainGroup("big", 50_000).group("ties", 100, 3);
    index.publish("h1");
    server = RespServer.start(RespServer.Options.of(index.root.toString()).withPort(0).withThreads(2)
        .withMaxClients(1_100));
    witness = new RawClient(server.port());
  }

  @AfterAll
  void stop() throws Exception {
    witness.close();
    server.close();
  }

  /** The witness client still gets right answers. */
  void stillServed() throws Exception {
    assertThat(witness.call("ZCARD", "big"), equalTo(50_000L));
    assertThat(witness.call("ZRANGE", "ties", "0", "-1"), equalTo(index.expected("ties", true)));
  }

  @Test
  void tenThousandNestedArraysAreAProtocolError() throws Exception {
    try (RawClient c = new RawClient(server.port())) {
      c.send("*1\r\n".repeat(10_000).getBytes(StandardCharsets.US_ASCII));
      Object r = c.read();
      assertThat(r, equalTo(new RawClient.Error("ERR Protocol error: expected '$', got '*'")));
      assertThat(c.closedByServer(), is(true));
    }
    stillServed();
  }

  @Test
  void aHalfGigabyteBulkLengthIsRefusedBeforeAnyOfItArrives() throws Exception {
    try (RawClient c = new RawClient(server.port())) {
      c.send("*2\r\n$4\r\nECHO\r\n$536870912\r\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(c.read(), equalTo(new RawClient.Error("ERR Protocol error: invalid bulk length")));
      assertThat(c.closedByServer(), is(true));
    }
    stillServed();
  }

  @Test
  void aRequestLargerThanTheLimitClosesItsConnection() throws Exception {
    try (RawClient c = new RawClient(server.port())) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      b.writeBytes("*200000\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] arg = ("$60\r\n" + "x".repeat(60) + "\r\n").getBytes(StandardCharsets.US_ASCII);
      for (int i = 0; i < 150_000; i++) {
        b.writeBytes(arg);
      }
      try {
        c.send(b.toByteArray());
      } catch (java.io.IOException e) {
        // the server may close while the client is still sending
      }
      Object r = c.read();
      assertThat(r, instanceOf(RawClient.Error.class));
      assertThat(((RawClient.Error) r).message(), startsWith("ERR Protocol error: a request larger than"));
    } catch (java.io.IOException e) {
      // reset before the error could be read: the connection was closed, which is what matters
    }
    stillServed();
  }

  @Test
  void truncatedFramesAndVanishingClientsLeaveNothingBehind() throws Exception {
    byte[] full = RawClient.command("ZRANGE", "big", "0", "9999");
    for (int cut : new int[] {1, 3, 10, full.length / 2, full.length - 1}) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", server.port()));
        s.getOutputStream().write(full, 0, cut);
        s.getOutputStream().flush();
      }
    }
    // a client that asks for a large reply and disconnects without reading it
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", server.port()));
      s.getOutputStream().write(RawClient.command("ZRANGE", "big", "0", "-1"));
      s.getOutputStream().flush();
    }
    stillServed();
    long deadline = System.currentTimeMillis() + 10_000;
    while (server.clients().size() > 1 && System.currentTimeMillis() < deadline) {
      Thread.onSpinWait();
    }
    assertThat("connections left open", server.clients().size(), equalTo(1));
  }

  @Test
  void binaryKeysAndMembersAreAnsweredNotChoked() throws Exception {
    try (RawClient c = new RawClient(server.port())) {
      byte[] key = new byte[256];
      for (int i = 0; i < key.length; i++) {
        key[i] = (byte) i;
      }
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      b.writeBytes("*3\r\n$6\r\nZSCORE\r\n$256\r\n".getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(key);
      b.writeBytes("\r\n$256\r\n".getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(key);
      b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
      c.send(b.toByteArray());
      assertThat(c.read(), equalTo(null));
      assertThat(c.call("ZSCORE", "big", "{\"PK2\":{\"S\":\"big\"},\"SK\":{\"N\":\"1\"},\"PK\":{\"B\":\"!!\"}}"),
          equalTo(null));
      assertThat(c.call("ZRANK", "big", "\u0000\u00ff not json"), equalTo(null));
    }
    stillServed();
  }

  @Test
  void aThousandIdleConnectionsDoNotStopTheServer() throws Exception {
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 1_000; i++) {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", server.port()));
        idle.add(s);
      }
      long deadline = System.currentTimeMillis() + 10_000;
      while (server.clients().size() < 1_001 && System.currentTimeMillis() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(server.clients().size(), equalTo(1_001));
      stillServed();
      try (RawClient c = new RawClient(server.port())) {
        assertThat(c.call("PING"), equalTo("PONG"));
      }
      // the server counts that client out when it sees it close: wait, or it may leave room for one more below
      deadline = System.currentTimeMillis() + 10_000;
      while (server.clients().size() > 1_001 && System.currentTimeMillis() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(server.clients().size(), equalTo(1_001));
      // beyond --maxClients a client is told so, as by Redis
      List<Socket> more = new ArrayList<>();
      try {
        for (int i = 0; i < 100; i++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress("127.0.0.1", server.port()));
          more.add(s);
        }
        try (RawClient c = new RawClient(server.port())) {
          assertThat(c.read(), equalTo(new RawClient.Error("ERR max number of clients reached")));
        }
      } finally {
        for (Socket s : more) {
          s.close();
        }
      }
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
    stillServed();
  }
}
