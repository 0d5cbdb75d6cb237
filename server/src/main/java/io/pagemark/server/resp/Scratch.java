package io.pagemark.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable byte array an event loop reuses to build one value (a member) at a time. Not thread-safe. */
final class Scratch {
  private static final byte[] BASE64 =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(StandardCharsets.US_ASCII);

  private byte[] buf = new byte[256];
  private int size;

  byte[] array() {
    return buf;
  }

  int size() {
    return size;
  }

  void reset() {
    size = 0;
  }

  void put(byte b) {
    if (size == buf.length) {
      ensure(1);
    }
    buf[size++] = b;
  }

  void append(byte[] b, int from, int length) {
    ensure(length);
    System.arraycopy(b, from, buf, size, length);
    size += length;
  }

  /** Standard base64 with padding, as {@link java.util.Base64#getEncoder()} writes it. */
  void base64(byte[] b, int from, int length) {
    ensure((length + 2) / 3 * 4);
    int end = from + length;
    int i = from;
    for (; i + 2 < end; i += 3) {
      int v = ((b[i] & 0xFF) << 16) | ((b[i + 1] & 0xFF) << 8) | (b[i + 2] & 0xFF);
      buf[size++] = BASE64[v >>> 18];
      buf[size++] = BASE64[(v >>> 12) & 63];
      buf[size++] = BASE64[(v >>> 6) & 63];
      buf[size++] = BASE64[v & 63];
    }
    if (i < end) {
      int v = (b[i] & 0xFF) << 16 | (i + 1 < end ? (b[i + 1] & 0xFF) << 8 : 0);
      buf[size++] = BASE64[v >>> 18];
      buf[size++] = BASE64[(v >>> 12) & 63];
      buf[size++] = i + 1 < end ? BASE64[(v >>> 6) & 63] : (byte) '=';
      buf[size++] = '=';
    }
  }

  void ensure(int more) {
    if (size + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
    }
  }

  /** Gives back memory after an unusually large value. */
  void shrink(int capacity) {
    if (buf.length > capacity) {
      buf = new byte[capacity];
      size = 0;
    }
  }
}
