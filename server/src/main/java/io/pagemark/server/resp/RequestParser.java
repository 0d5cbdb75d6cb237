package io.pagemark.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds and decodes one request in a client's bytes: a RESP array of bulk strings ({@code *2\r\n$4\r\nECHO\r\n$1\r\nx\r\n}),
 * as every client sends, or an inline command ({@code PING\r\n}), as telnet does. A request is checked whole before
 * anything is allocated for it, so a client that announces a million arguments or a 512 MB string and sends nothing
 * costs nothing; what breaks the protocol or the limits is a {@link ProtocolException}, after which the connection is
 * closed (Redis's own error texts). Stateless; the caller keeps incomplete bytes and calls again with more.
 */
final class RequestParser {
  /** Longest bulk string a request may carry (members are at most a few kB; Redis allows 512 MB). */
  static final int MAX_BULK = 1 << 20;
  /** Most arguments one request may carry. */
  static final int MAX_ARGS = 1 << 20;
  /** Longest inline command line. */
  static final int MAX_INLINE = 64 * 1024;

  /** A request that breaks the protocol or a limit; the text is the error reply, after which the server closes. */
  static final class ProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    ProtocolException(String message) {
      super(message, null, false, false);
    }
  }

  private RequestParser() {}

  /**
   * The end (exclusive) of the request that starts at {@code from}; when {@code b[from, limit)} does not hold all of
   * it yet, a negative number whose magnitude is how many bytes from {@code from} it needs at least (so that a large
   * request arriving in pieces is not parsed again for every piece).
   */
  static int frameEnd(byte[] b, int from, int limit) throws ProtocolException {
    int more = -(limit - from + 1);
    if (from >= limit) {
      return more;
    }
    if (b[from] != '*') {
      int eol = indexOf(b, from, limit, (byte) '\n');
      if (eol < 0) {
        if (limit - from > MAX_INLINE) {
          throw new ProtocolException("Protocol error: too big inline request");
        }
        return more;
      }
      return eol + 1;
    }
    int p = from + 1;
    int eol = lineEnd(b, p, limit, "multibulk");
    if (eol < 0) {
      return more;
    }
    long count = number(b, p, eol, "multibulk");
    if (count > MAX_ARGS) {
      throw new ProtocolException("Protocol error: invalid multibulk length");
    }
    p = eol + 2;
    for (long i = 0; i < count; i++) {
      if (p >= limit) {
        return more;
      }
      if (b[p] != '$') {
        throw new ProtocolException("Protocol error: expected '$', got '" + printable(b[p]) + "'");
      }
      eol = lineEnd(b, p + 1, limit, "bulk");
      if (eol < 0) {
        return more;
      }
      long length = number(b, p + 1, eol, "bulk");
      if (length < 0 || length > MAX_BULK) {
        throw new ProtocolException("Protocol error: invalid bulk length");
      }
      p = eol + 2;
      if (limit - p < length + 2) {
        return -(int) (p + length + 2 - from);
      }
      p += (int) length;
      if (b[p] != '\r' || b[p + 1] != '\n') {
        throw new ProtocolException("Protocol error: expected CRLF after a bulk string of " + length + " bytes");
      }
      p += 2;
    }
    return p;
  }

  /** The arguments of the complete request {@code b[from, end)} that {@link #frameEnd} found; empty for a blank line. */
  static byte[][] arguments(byte[] b, int from, int end) throws ProtocolException {
    if (b[from] != '*') {
      return inline(b, from, end);
    }
    int eol = indexOf(b, from, end, (byte) '\r');
    int count = (int) number(b, from + 1, eol, "multibulk");
    byte[][] args = new byte[Math.max(count, 0)][];
    int p = eol + 2;
    for (int i = 0; i < count; i++) {
      eol = indexOf(b, p, end, (byte) '\r');
      int length = (int) number(b, p + 1, eol, "bulk");
      p = eol + 2;
      byte[] a = new byte[length];
      System.arraycopy(b, p, a, 0, length);
      args[i] = a;
      p += length + 2;
    }
    return args;
  }

  /** An inline command: words separated by spaces, with Redis's double and single quotes. */
  private static byte[][] inline(byte[] b, int from, int end) throws ProtocolException {
    int stop = end;
    while (stop > from && (b[stop - 1] == '\n' || b[stop - 1] == '\r')) {
      stop--;
    }
    String line = new String(b, from, stop - from, StandardCharsets.ISO_8859_1);
    List<byte[]> words = new ArrayList<>();
    int i = 0;
    while (i < line.length()) {
      char c = line.charAt(i);
      if (c == ' ' || c == '\t') {
        i++;
        continue;
      }
      java.io.ByteArrayOutputStream word = new java.io.ByteArrayOutputStream();
      if (c == '"' || c == '\'') {
        char quote = c;
        i++;
        boolean closed = false;
        while (i < line.length()) {
          char d = line.charAt(i++);
          if (d == quote) {
            closed = true;
            break;
          }
          if (d == '\\' && quote == '"' && i < line.length()) {
            d = unescape(line, i);
            i += line.charAt(i) == 'x' ? 3 : 1;
          }
          word.write(d);
        }
        if (!closed || (i < line.length() && line.charAt(i) != ' ' && line.charAt(i) != '\t')) {
          throw new ProtocolException("Protocol error: unbalanced quotes in request");
        }
      } else {
        while (i < line.length() && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
          word.write(line.charAt(i++));
        }
      }
      words.add(word.toByteArray());
    }
    return words.toArray(new byte[0][]);
  }

  private static char unescape(String line, int i) {
    char e = line.charAt(i);
    switch (e) {
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'b':
        return '\b';
      case 'a':
        return 7;
      case 'x':
        if (i + 2 < line.length()) {
          try {
            return (char) Integer.parseInt(line.substring(i + 1, i + 3), 16);
          } catch (NumberFormatException ex) {
            return 'x';
          }
        }
        return 'x';
      default:
        return e;
    }
  }

  /** The position of the '\r' that ends the line starting at {@code p}, or -1 if it is not all there yet. */
  private static int lineEnd(byte[] b, int p, int limit, String what) throws ProtocolException {
    int max = Math.min(limit, p + 24);
    for (int i = p; i < max; i++) {
      if (b[i] == '\r') {
        if (i + 1 >= limit) {
          return -1;
        }
        if (b[i + 1] != '\n') {
          throw new ProtocolException("Protocol error: invalid " + what + " length");
        }
        return i;
      }
    }
    if (max < limit) {
      throw new ProtocolException("Protocol error: invalid " + what + " length");
    }
    return -1;
  }

  private static long number(byte[] b, int from, int to, String what) throws ProtocolException {
    if (from >= to) {
      throw new ProtocolException("Protocol error: invalid " + what + " length");
    }
    boolean negative = b[from] == '-';
    int i = negative ? from + 1 : from;
    if (i >= to) {
      throw new ProtocolException("Protocol error: invalid " + what + " length");
    }
    long v = 0;
    for (; i < to; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9 || v > Integer.MAX_VALUE) {
        throw new ProtocolException("Protocol error: invalid " + what + " length");
      }
      v = v * 10 + d;
    }
    return negative ? -v : v;
  }

  private static int indexOf(byte[] b, int from, int limit, byte x) {
    for (int i = from; i < limit; i++) {
      if (b[i] == x) {
        return i;
      }
    }
    return -1;
  }

  private static String printable(byte c) {
    return c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\x%02x", c & 0xff);
  }
}
