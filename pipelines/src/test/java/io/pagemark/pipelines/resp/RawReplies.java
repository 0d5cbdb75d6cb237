package io.pagemark.pipelines.resp;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** A socket that sends requests and returns each reply's exact bytes, to compare two servers byte for byte. */
final class RawReplies implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawReplies(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(30_000);
    in = new BufferedInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  /** The reply's bytes to a request of these arguments. */
  byte[] call(List<byte[]> args) throws IOException {
    ByteArrayOutputStream req = new ByteArrayOutputStream();
    req.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (byte[] a : args) {
      req.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      req.writeBytes(a);
      req.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    out.write(req.toByteArray());
    out.flush();
    ByteArrayOutputStream reply = new ByteArrayOutputStream();
    read(reply);
    return reply.toByteArray();
  }

  private void read(ByteArrayOutputStream reply) throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new java.io.EOFException("connection closed");
    }
    reply.write(type);
    String line = line(reply);
    if (type == '$') {
      int n = Integer.parseInt(line);
      if (n >= 0) {
        reply.writeBytes(in.readNBytes(n + 2));
      }
    } else if (type == '*') {
      int n = Integer.parseInt(line);
      for (int i = 0; i < n; i++) {
        read(reply);
      }
    }
  }

  private String line(ByteArrayOutputStream reply) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c; (c = in.read()) >= 0; ) {
      reply.write(c);
      if (c == '\n') {
        break;
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
