package io.pagemark.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Replies in RESP2, appended to a growable byte array that an event loop reuses for every client it serves (so an
 * idle connection holds no output buffer). Numbers are written as digits without allocating. Not thread-safe.
 */
final class Reply {
  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] NIL = "$-1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] NIL_ARRAY = "*-1\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] OK = "+OK\r\n".getBytes(StandardCharsets.US_ASCII);

  private byte[] buf;
  private int size;

  Reply(int capacity) {
    buf = new byte[capacity];
  }

  byte[] array() {
    return buf;
  }

  int size() {
    return size;
  }

  void clear() {
    size = 0;
  }

  /** Drops everything after {@code mark} (a reply that turned out to be an error after it began). */
  void truncate(int mark) {
    size = mark;
  }

  /** Removes the first {@code n} bytes (written to the socket). */
  void consume(int n) {
    System.arraycopy(buf, n, buf, 0, size - n);
    size -= n;
  }

  /** Gives the array back to its initial capacity after a big reply, so that one large range does not stay. */
  void shrink(int capacity) {
    if (buf.length > capacity && size <= capacity) {
      buf = Arrays.copyOf(buf, capacity);
    }
  }

  void ok() {
    raw(OK);
  }

  void simple(String s) {
    ensure(s.length() + 3);
    buf[size++] = '+';
    ascii(s);
    raw(CRLF);
  }

  /** An error reply; {@code message} starts with its code ({@code ERR}, {@code WRONGTYPE}, {@code NOPROTO}). */
  void error(String message) {
    byte[] m = message.replace('\r', ' ').replace('\n', ' ').getBytes(StandardCharsets.UTF_8);
    ensure(m.length + 3);
    buf[size++] = '-';
    raw(m);
    raw(CRLF);
  }

  void integer(long v) {
    ensure(24);
    buf[size++] = ':';
    digits(v);
    raw(CRLF);
  }

  void nil() {
    raw(NIL);
  }

  void nilArray() {
    raw(NIL_ARRAY);
  }

  void array(long n) {
    ensure(24);
    buf[size++] = '*';
    digits(n);
    raw(CRLF);
  }

  void bulk(byte[] b) {
    bulk(b, 0, b.length);
  }

  void bulk(byte[] b, int off, int len) {
    ensure(len + 16);
    buf[size++] = '$';
    digits(len);
    raw(CRLF);
    System.arraycopy(b, off, buf, size, len);
    size += len;
    raw(CRLF);
  }

  void bulk(String s) {
    bulk(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A whole number as a bulk string, as Redis prints an integral score. */
  void bulkNumber(long v) {
    ensure(48);
    buf[size++] = '$';
    digits(width(v));
    raw(CRLF);
    digits(v);
    raw(CRLF);
  }

  private static int width(long v) {
    if (v == Long.MIN_VALUE) {
      return 20;
    }
    int n = v < 0 ? 2 : 1;
    for (long x = Math.abs(v); x >= 10; x /= 10) {
      n++;
    }
    return n;
  }

  void raw(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, size, b.length);
    size += b.length;
  }

  private void ascii(String s) {
    ensure(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      buf[size++] = (byte) (c < 0x80 ? c : '?');
    }
  }

  private void digits(long v) {
    if (v < 0) {
      if (v == Long.MIN_VALUE) {
        ascii(Long.toString(v));
        return;
      }
      buf[size++] = '-';
      v = -v;
    }
    if (v < 10) {
      buf[size++] = (byte) ('0' + v);
      return;
    }
    int n = 0;
    for (long x = v; x > 0; x /= 10) {
      n++;
    }
    for (int i = size + n - 1; i >= size; i--) {
      buf[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    size += n;
  }

  void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }
}
