package io.pagemark.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The smallest HTTP/1.1 client that times one client's sequential GETs fairly: one kept-alive connection with
 * {@code TCP_NODELAY}, requests prepared before the clock starts, and the answer read on the calling thread (status
 * line, headers, a {@code Content-Length} body). The JDK's {@code HttpClient} hands every exchange between its own
 * threads, which on a busy machine adds scheduling waits that are the client's, not the server's. Not thread-safe.
 */
final class LoopbackHttp implements AutoCloseable {
  /** An answer: its status, its headers (names in lower case, the last value of each) and its body. */
  record Answer(int status, Map<String, String> headers, byte[] body) {}

  private final String host;
  private final int port;
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  LoopbackHttp(URI server) {
    this.host = server.getHost();
    this.port = server.getPort();
  }

  /** The bytes of {@code GET uri}, to send with {@link #send}; built outside the timed part. */
  byte[] prepare(URI uri) {
    if (!host.equals(uri.getHost()) || port != uri.getPort()) {
      throw new IllegalArgumentException(uri + " is not on " + host + ":" + port);
    }
    String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return ("GET " + target + " HTTP/1.1\r\nHost: " + host + ":" + port + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Sends a prepared request and reads its whole answer. Opens the connection on first use and again after the
   * server closed it.
   *
   * @throws IOException when the connection fails or the answer is not HTTP/1.1 with a {@code Content-Length}
   */
  Answer send(byte[] request) throws IOException {
    if (socket == null) {
      socket = new Socket();
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(60_000);
      in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
      out = socket.getOutputStream();
    }
    out.write(request);
    out.flush();
    String statusLine = line();
    if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("not an HTTP/1.1 status line: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    Map<String, String> headers = new HashMap<>();
    for (String h = line(); !h.isEmpty(); h = line()) {
      int colon = h.indexOf(':');
      if (colon > 0) {
        headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
      }
    }
    byte[] body;
    String length = headers.get("content-length");
    if (length != null) {
      body = in.readNBytes(Integer.parseInt(length));
    } else if (status == 304 || status == 204) {
      body = new byte[0];
    } else {
      throw new IOException("answer " + status + " without Content-Length (headers " + headers + ")");
    }
    if ("close".equalsIgnoreCase(headers.get("connection"))) {
      close();
    }
    return new Answer(status, headers, body);
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(128);
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        close();
        throw new EOFException("the server closed the connection mid-answer");
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() throws IOException {
    if (socket != null) {
      Socket s = socket;
      socket = null;
      s.close();
    }
  }
}
