package io.pagemark.server.resp;

import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.Arrays;

/**
 * One client's state between reads: the bytes of a request not complete yet, reply bytes the socket has not taken,
 * a long reply still being produced, or a reply being computed on another thread. Holds no buffer while idle. Used by
 * its event loop's thread only.
 */
final class Connection {
  /** A reply produced a piece at a time (a large range), so that it never sits whole in memory. */
  interface Continuation {
    /** Appends more of the reply to {@code out}; returns true when the reply is complete. */
    boolean produce(Reply out, Scratch scratch) throws java.io.IOException;

    /** Lets go of what the reply holds (it completed, or the client went away). */
    void release();
  }

  final SocketChannel channel;
  final long id;
  final long connectedMillis = System.currentTimeMillis();
  SelectionKey key;
  String name;
  String libName;
  String libVersion;

  /** Received bytes that do not hold a whole request yet (null when there are none). */
  byte[] pending;
  int pendingLength;
  /** The request at the start of {@link #pending} is not complete before this many bytes. */
  int needed;

  /** Reply bytes the socket did not take yet (null when there are none). */
  byte[] unsent;
  int unsentFrom;
  int unsentTo;

  Continuation more;
  /**
   * Replies being computed elsewhere (writes to the WAL, a commit); requests wait behind them, except further ZADD and
   * ZREM, whose replies come back in order from the same writer.
   */
  int awaiting;
  /** Close once everything before is sent (QUIT, a protocol error). */
  boolean closing;
  boolean closed;
  long lastCommandMillis = connectedMillis;
  String lastCommand = "NULL";

  Connection(SocketChannel channel, long id) {
    this.channel = channel;
    this.id = id;
  }

  /** Whether the connection can run its next request now. */
  boolean ready() {
    return awaiting == 0 && more == null && unsent == null && !closing && !closed;
  }

  /** Whether the connection can run a request whose reply is also computed by the WAL writer. */
  boolean readyForAppend() {
    return more == null && unsent == null && !closing && !closed;
  }

  /** Keeps {@code b[from, to)} as the start of the next request. */
  void keep(byte[] b, int from, int to) {
    int n = to - from;
    if (n == 0) {
      pending = null;
      pendingLength = 0;
      needed = 0;
      return;
    }
    if (b == pending) {
      System.arraycopy(b, from, b, 0, n);
    } else {
      if (pending == null || pending.length < n) {
        pending = new byte[Math.max(n, 1024)];
      }
      System.arraycopy(b, from, pending, 0, n);
    }
    pendingLength = n;
  }

  /** Makes room for {@code more} bytes after the pending ones. */
  void grow(int more) {
    if (pending == null) {
      pending = new byte[Math.max(more, 1024)];
    } else if (pending.length - pendingLength < more) {
      pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLength + more));
    }
  }

  /** Keeps reply bytes the socket did not take (after those it has not taken yet). */
  void keepUnsent(byte[] b, int from, int to) {
    if (unsent == null) {
      unsent = Arrays.copyOfRange(b, from, to);
      unsentFrom = 0;
      unsentTo = unsent.length;
      return;
    }
    int n = to - from;
    if (unsent.length - unsentTo < n) {
      unsent = Arrays.copyOfRange(unsent, unsentFrom, Math.max(unsent.length * 2, unsentTo - unsentFrom + n));
      unsentTo -= unsentFrom;
      unsentFrom = 0;
    }
    System.arraycopy(b, from, unsent, unsentTo, n);
    unsentTo += n;
  }
}
