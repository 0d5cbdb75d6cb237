package io.pagemark.server.resp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * One thread serving its share of the connections, as Redis's event loop does: it reads what a socket has, runs every
 * complete request in it (pipelining) against the build it serves, and writes the replies with one call, using one
 * input and one output buffer for all its clients. A long reply is produced as the socket takes it; a reply computed
 * elsewhere (a write, a commit) is queued back to the loop. A protocol error or an oversized request closes that
 * connection only.
 */
final class EventLoop implements Runnable {
  /** Largest request a connection may send (all its arguments), and what it may have buffered unanswered. */
  static final int MAX_REQUEST = 8 << 20;
  private static final int FLUSH_AT = 64 * 1024;

  private final RespServer server;
  private final Selector selector;
  private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final byte[] input = new byte[64 * 1024];
  private final ByteBuffer inputBuffer = ByteBuffer.wrap(input);
  private final Reply out = new Reply(FLUSH_AT * 2);
  private final Session session;
  private final Set<Connection> connections = new HashSet<>();
  private volatile boolean draining;
  /** Read by other threads for INFO without synchronization: a statistic may lag. */
  private long commands;
  final Thread thread;

  EventLoop(RespServer server, int index) throws IOException {
    this.server = server;
    this.selector = Selector.open();
    this.session = new Session(server, this, out, new LoopGroups(server.options().maxOpenGroups()));
    this.thread = new Thread(this, "pagemark-resp-" + index);
  }

  /** Hands a new connection to this loop (from the accepting thread). */
  void add(SocketChannel channel, long id) {
    execute(() -> {
      Connection c = new Connection(channel, id);
      try {
        c.key = channel.register(selector, SelectionKey.OP_READ, c);
        connections.add(c);
        server.opened(c);
      } catch (ClosedChannelException e) {
        server.closed(c);
      }
    });
  }

  /** Runs a task on this loop's thread. */
  void execute(Runnable task) {
    tasks.add(task);
    selector.wakeup();
  }

  /** Stops reading requests; finishes the replies under way, then ends the loop (see {@link RespServer#close}). */
  void drain() {
    draining = true;
    selector.wakeup();
  }

  long commandsProcessed() {
    return commands;
  }

  @Override
  public void run() {
    try {
      while (true) {
        selector.select(this::ready, draining ? 50 : 0);
        for (Runnable t; (t = tasks.poll()) != null; ) {
          t.run();
        }
        if (draining) {
          for (Connection c : new ArrayList<>(connections)) {
            if (c.awaiting == 0 && c.unsent == null && c.more == null) {
              close(c);
            } else if (c.key.isValid() && (c.key.interestOps() & SelectionKey.OP_READ) != 0) {
              c.key.interestOps(c.key.interestOps() & ~SelectionKey.OP_READ);
            }
          }
          if (connections.isEmpty()) {
            return;
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      server.loopFailed(e);
    } finally {
      for (Connection c : new ArrayList<>(connections)) {
        close(c);
      }
      session.groups.closeAll();
      try {
        selector.close();
      } catch (IOException e) {
        // nothing left to release
      }
    }
  }

  /** Stops whatever is unfinished: the server is going down after its drain deadline. */
  void stopNow() {
    execute(() -> {
      for (Connection c : new ArrayList<>(connections)) {
        close(c);
      }
    });
  }

  private void ready(SelectionKey key) {
    Connection c = (Connection) key.attachment();
    try {
      int ops = key.readyOps();
      if ((ops & SelectionKey.OP_WRITE) != 0) {
        writable(c);
      }
      if ((ops & SelectionKey.OP_READ) != 0 && key.isValid() && c.ready() && !draining) {
        readable(c);
      }
    } catch (IOException e) {
      close(c);
    }
  }

  private void readable(Connection c) throws IOException {
    if (c.pending == null) {
      inputBuffer.clear();
      int n = c.channel.read(inputBuffer);
      if (n < 0) {
        close(c);
      } else if (n > 0) {
        serve(c, input, n);
      }
      return;
    }
    c.grow(16 * 1024);
    int n = c.channel.read(ByteBuffer.wrap(c.pending, c.pendingLength, c.pending.length - c.pendingLength));
    if (n < 0) {
      close(c);
      return;
    }
    c.pendingLength += n;
    if (c.pendingLength < c.needed) {
      return; // the request under way is not complete yet
    }
    serve(c, c.pending, c.pendingLength);
  }

  /** Runs the complete requests at the start of {@code b[0, limit)} and keeps the rest for later. */
  private void serve(Connection c, byte[] b, int limit) throws IOException {
    refreshBuild();
    session.groups.newBatch();
    session.client = c;
    out.clear();
    int p = 0;
    try {
      while (c.ready() || (c.awaiting > 0 && c.readyForAppend())) {
        int end = RequestParser.frameEnd(b, p, limit);
        if (end < 0) {
          c.needed = -end;
          if (-end > MAX_REQUEST) {
            throw new RequestParser.ProtocolException("Protocol error: a request larger than " + MAX_REQUEST
                + " bytes");
          }
          break;
        }
        byte[][] args = RequestParser.arguments(b, p, end);
        if (c.awaiting > 0 && !WriteCommands.appends(args)) {
          break; // its reply would overtake the awaited ones: it runs once they are written
        }
        p = end;
        if (args.length > 0) {
          run(c, args);
        }
        if (out.size() >= FLUSH_AT && !flush(c)) {
          break;
        }
      }
    } catch (RequestParser.ProtocolException e) {
      out.error("ERR " + e.getMessage());
      c.closing = true;
      p = limit;
    }
    c.keep(b, p, limit);
    if (c.pending == null) {
      c.needed = 0;
    }
    if (flush(c) && c.more != null) {
      pump(c);
    }
    after(c);
  }

  private void run(Connection c, byte[][] args) throws IOException {
    int mark = out.size();
    int awaited = c.awaiting;
    try {
      Commands.run(session, args);
    } catch (IOException | RuntimeException e) {
      out.truncate(mark);
      out.error("ERR " + server.describeFailure(e));
    }
    if (awaited > 0 && c.awaiting == awaited) {
      // an immediate reply (a refused ZADD) behind awaited ones: it queues behind them with the WAL writer
      byte[] reply = java.util.Arrays.copyOfRange(out.array(), mark, out.size());
      out.truncate(mark);
      session.await();
      server.writes().after(() -> session.complete(c, o -> o.raw(reply)));
    }
    commands++;
    c.lastCommandMillis = System.currentTimeMillis();
  }

  /** Makes sure this loop serves the current build; each batch of requests reads one build. */
  private void refreshBuild() {
    ServedBuild current = server.current();
    while (current != session.groups.build()) {
      if (current.hold()) {
        session.groups.serve(current);
        return;
      }
      current = server.current();
    }
  }

  /** Writes the output buffer; keeps what the socket did not take. Returns whether everything went. */
  private boolean flush(Connection c) throws IOException {
    if (out.size() == 0) {
      return true;
    }
    ByteBuffer b = ByteBuffer.wrap(out.array(), 0, out.size());
    c.channel.write(b);
    if (b.hasRemaining()) {
      c.keepUnsent(out.array(), b.position(), out.size());
      out.clear();
      return false;
    }
    out.clear();
    out.shrink(FLUSH_AT * 2);
    return true;
  }

  private void writable(Connection c) throws IOException {
    if (c.unsent != null) {
      ByteBuffer b = ByteBuffer.wrap(c.unsent, c.unsentFrom, c.unsentTo - c.unsentFrom);
      c.channel.write(b);
      c.unsentFrom = b.position();
      if (b.hasRemaining()) {
        return;
      }
      c.unsent = null;
    }
    if (c.more != null && !pump(c)) {
      after(c);
      return;
    }
    resume(c);
  }

  /** Produces and sends more of a long reply while the socket takes it; returns whether the reply is complete. */
  private boolean pump(Connection c) throws IOException {
    while (c.more != null) {
      out.clear();
      boolean done;
      try {
        done = c.more.produce(out, session.scratch);
      } catch (IOException | RuntimeException e) {
        // the array header is out already: the client cannot be answered consistently any more
        out.clear();
        c.closing = true;
        done = true;
      }
      if (done) {
        c.more.release();
        c.more = null;
      }
      if (!flush(c)) {
        return false;
      }
    }
    return true;
  }

  /** Goes on with the requests a connection had queued behind a long or awaited reply. */
  private void resume(Connection c) throws IOException {
    if (c.ready() && c.pending != null && !draining) {
      serve(c, c.pending, c.pendingLength);
    } else {
      after(c);
    }
  }

  /** Called on this loop when a reply computed on another thread is ready (they come in request order). */
  void completeAwaited(Connection c, Consumer<Reply> reply) {
    c.awaiting--;
    if (c.closed) {
      return;
    }
    try {
      out.clear();
      reply.accept(out);
      if (c.unsent != null) {
        c.keepUnsent(out.array(), 0, out.size()); // behind the bytes still queued
        out.clear();
        after(c);
      } else if (flush(c) && c.awaiting == 0) {
        resume(c);
      } else {
        after(c);
      }
    } catch (IOException e) {
      close(c);
    }
  }

  /** Sets what the loop waits for on a connection, or closes it when it asked to be closed. */
  private void after(Connection c) {
    if (c.closed) {
      return;
    }
    if (c.closing && c.unsent == null && c.more == null && c.awaiting == 0) {
      close(c);
      return;
    }
    int ops = c.unsent != null || c.more != null ? SelectionKey.OP_WRITE
        : c.awaiting > 0 || c.closing || draining ? 0 : SelectionKey.OP_READ;
    if (c.key.isValid() && c.key.interestOps() != ops) {
      c.key.interestOps(ops);
    }
  }

  private void close(Connection c) {
    if (c.closed) {
      return;
    }
    c.closed = true;
    if (c.more != null) {
      c.more.release();
      c.more = null;
    }
    c.pending = null;
    c.unsent = null;
    if (c.key != null) {
      c.key.cancel();
    }
    try {
      c.channel.close();
    } catch (IOException e) {
      // the peer is gone either way
    }
    connections.remove(c);
    server.closed(c);
  }
}
