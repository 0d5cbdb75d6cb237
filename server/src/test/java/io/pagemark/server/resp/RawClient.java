package io.pagemark.server.resp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A RESP client that sends whatever bytes a test gives it and reads replies as plain values (String for simple and
 * bulk strings, "ERR ..." errors as {@link Error}, Long, List, null), to test the protocol itself.
 */
final class RawClient implements AutoCloseable {
  /** An error reply. */
  record Error(String message) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawClient(int port) throws IOException {
    socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    socket.setSoTimeout(10_000);
    in = new java.io.BufferedInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  static byte[] command(String... args) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    byte[] header = ("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8);
    b.writeBytes(header);
    for (String a : args) {
      byte[] v = a.getBytes(StandardCharsets.UTF_8);
      b.writeBytes(("$" + v.length + "\r\n").getBytes(StandardCharsets.UTF_8));
      b.writeBytes(v);
      b.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
    }
    return b.toByteArray();
  }

  void send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  Object call(String... args) throws IOException {
    send(command(args));
    return read();
  }

  Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new java.io.EOFException("the server closed the connection");
    }
    String line = line();
    switch (type) {
      case '+':
        return line;
      case '-':
        return new Error(line);
      case ':':
        return Long.parseLong(line);
      case '$': {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        byte[] v = in.readNBytes(n + 2);
        return new String(v, 0, n, StandardCharsets.UTF_8);
      }
      case '*': {
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        List<Object> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(read());
        }
        return items;
      }
      default:
        throw new IOException("not a RESP reply: " + (char) type + line);
    }
  }

  /** Whether the server has closed the connection (reads to the end, within the timeout). */
  boolean closedByServer() throws IOException {
    try {
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by the server
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c; (c = in.read()) >= 0; ) {
      if (c == '\r') {
        in.read();
        break;
      }
      b.write(c);
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
