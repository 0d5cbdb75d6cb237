package io.pagemark.server.resp;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.IndexLayout;
import io.pagemark.lookup.UnionCursor;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Redis-protocol server over an index: each group is a sorted set whose members are its items' exclusive start
 * keys and whose scores are their ranks, so any Redis client pages through DynamoDB (see {@code docs/resp.md}).
 * {@link #start} binds, serves a file index's current build and switches to each newly published build within
 * {@link Options#POLL_MILLIS} (a reply always comes from one build); an index of another store (page markers inside
 * DynamoDB, say) is read through the lookup library as it is, read-only. {@link #close} drains and stops. Thread-safe.
 *
 * <pre>{@code
 * try (RespServer server = RespServer.start(RespServer.Options.of("/data/comments-index").withPort(6380))) {
 *   server.awaitClose();
 * }
 * }</pre>
 */
public final class RespServer implements AutoCloseable {
  /**
   * How a server runs; immutable, with {@code withX} copies.
   *
   * @param index the index (as {@code --index}): a file index's directory, or a spec {@code Indexes.open} takes
   * @param bind the address to listen on
   * @param port the port (0: any free port)
   * @param wal the index directory whose write-ahead log receives ZADD and ZREM, or null to serve read-only
   * @param maxClients connections served at once; more are refused with Redis's error
   * @param threads event loops
   * @param ties where commits learn DynamoDB's order of equal sort keys, or null
   * @param maxOpenGroups group files each event loop keeps open
   * @param cursors what signs and checks the cursors of {@code PM.UPAGE} and {@code PM.UNEXT} ({@link #of} makes a
   *     random secret: cursors then work with this process only and die when it stops)
   */
  public record Options(String index, String bind, int port, Path wal, int maxClients, int threads,
      DynamoConnection ties, int maxOpenGroups, UnionCursor cursors) {
    /** How often the index's {@code CURRENT} pointer is checked for a new build. */
    public static final long POLL_MILLIS = 50;

    public Options {
      Objects.requireNonNull(index, "index");
      Objects.requireNonNull(bind, "bind");
      Objects.requireNonNull(cursors, "cursors");
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be between 0 and 65535, not " + port);
      }
      if (maxClients < 1) {
        throw new IllegalArgumentException("maxClients must be at least 1, not " + maxClients);
      }
      if (threads < 1 || threads > 64) {
        throw new IllegalArgumentException("threads must be between 1 and 64, not " + threads);
      }
      if (maxOpenGroups < 1) {
        throw new IllegalArgumentException("maxOpenGroups must be at least 1, not " + maxOpenGroups);
      }
    }

    /** Port 6380 on 127.0.0.1, read-only, 10,000 clients, one event loop per core (at most 4). */
    public static Options of(String index) {
      return new Options(index, "127.0.0.1", 6380, null, 10_000,
          Math.min(4, Runtime.getRuntime().availableProcessors()), null, 1024, UnionCursor.withRandomSecret());
    }

    /** The same options with cursors signed by {@code c} (the secret every server that reads them shares). */
    public Options withCursors(UnionCursor c) {
      return new Options(index, bind, port, wal, maxClients, threads, ties, maxOpenGroups, c);
    }

    public Options withBind(String b) {
      return new Options(index, b, port, wal, maxClients, threads, ties, maxOpenGroups, cursors);
    }

    public Options withPort(int p) {
      return new Options(index, bind, p, wal, maxClients, threads, ties, maxOpenGroups, cursors);
    }

    public Options withWal(Path w) {
      return new Options(index, bind, port, w, maxClients, threads, ties, maxOpenGroups, cursors);
    }

    public Options withMaxClients(int n) {
      return new Options(index, bind, port, wal, n, threads, ties, maxOpenGroups, cursors);
    }

    public Options withThreads(int n) {
      return new Options(index, bind, port, wal, maxClients, n, ties, maxOpenGroups, cursors);
    }

    public Options withTieResolution(DynamoConnection c) {
      return new Options(index, bind, port, wal, maxClients, threads, c, maxOpenGroups, cursors);
    }
  }

  private final Options options;
  private final Path root;
  private final ServerSocketChannel listener;
  private final EventLoop[] loops;
  private final Thread acceptor;
  private final ScheduledExecutorService watcher;
  private final Writes writes;
  private final ConcurrentHashMap<Long, Connection> clients = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  /** Connections accepted and not closed yet (counted when accepted, so that --maxClients holds at once). */
  private final java.util.concurrent.atomic.AtomicInteger connected = new java.util.concurrent.atomic.AtomicInteger();
  private final long startedMillis = System.currentTimeMillis();
  private final Object refreshLock = new Object();
  private final PrintStream log;
  private volatile ServedBuild current;
  private volatile boolean closing;

  private RespServer(Options options, Path root, ServedBuild first, ServerSocketChannel listener, PrintStream log)
      throws IOException {
    this.options = options;
    this.root = root;
    this.current = first;
    this.listener = listener;
    this.log = log;
    this.writes = options.wal() == null ? null : new Writes(root, options.ties());
    this.loops = new EventLoop[options.threads()];
    for (int i = 0; i < loops.length; i++) {
      loops[i] = new EventLoop(this, i);
    }
    this.acceptor = new Thread(this::accept, "pagemark-resp-accept");
    this.watcher = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pagemark-resp-builds");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Opens the index's current build, binds and starts serving.
   *
   * @throws java.nio.file.NoSuchFileException when the index directory or its published build is missing
   * @throws IllegalArgumentException when {@code wal} is not the file index's directory, or is given for another
   *     store, or the index spec is malformed
   * @throws IOException when the port cannot be bound or the build cannot be read
   */
  public static RespServer start(Options options) throws IOException {
    return start(options, System.err);
  }

  /** As {@link #start(Options)}, logging failures of the server's threads to {@code log}. */
  public static RespServer start(Options options, PrintStream log) throws IOException {
    Path root = isFileIndex(options.index()) ? fileIndexRoot(options.index()) : null;
    if (options.wal() != null) {
      if (root == null) {
        throw new IllegalArgumentException("--wal stages ZADD and ZREM in a file index's write-ahead log; \""
            + options.index() + "\" is not a file index, and is served read-only (leave --wal out)");
      }
      Path w = options.wal().toAbsolutePath().normalize();
      Path r = root.toAbsolutePath().normalize();
      if (!w.equals(r) && !w.equals(r.resolve(io.pagemark.wal.Wal.DIR))) {
        throw new IllegalArgumentException("--wal must name the served index's directory (" + r + "), whose wal/"
            + " folder pagemark stream and pagemark commit use too; it names " + w);
      }
    }
    ServedBuild first = root == null ? ServedBuild.openLive(options.index())
        : ServedBuild.open(options.index(), root, new IndexLayout(root).currentBuildId());
    ServerSocketChannel listener = ServerSocketChannel.open();
    try {
      listener.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      listener.bind(new InetSocketAddress(options.bind(), options.port()), 511);
    } catch (IOException e) {
      listener.close();
      first.release();
      throw new IOException("cannot listen on " + options.bind() + ":" + options.port() + " (" + e.getMessage()
          + "); is another server using the port? choose another with --port", e);
    }
    RespServer s = new RespServer(options, root, first, listener, log);
    for (EventLoop l : s.loops) {
      l.thread.start();
    }
    s.acceptor.start();
    if (root != null) {
      s.watcher.scheduleWithFixedDelay(s::poll, Options.POLL_MILLIS, Options.POLL_MILLIS, TimeUnit.MILLISECONDS);
    }
    return s;
  }

  /** Whether an {@code --index} value names a file index (a directory or a {@code file:} URI). */
  static boolean isFileIndex(String spec) {
    return !spec.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*") || spec.startsWith("file:");
  }

  /** The directory of a file index named by an {@code --index} value. */
  static Path fileIndexRoot(String spec) {
    return spec.startsWith("file:") ? Path.of(java.net.URI.create(spec)) : Path.of(spec);
  }

  public Options options() {
    return options;
  }

  /** The port the server listens on (the one chosen when the options asked for 0). */
  public int port() {
    return ((InetSocketAddress) listener.socket().getLocalSocketAddress()).getPort();
  }

  /** The build served now. */
  public String buildId() {
    return current.id();
  }

  /** Groups of the build served now (-1 when another store than files cannot list them). */
  public long groups() {
    return current.groupCount();
  }

  /** Entries of the build served now; -1 for an index of another store than files, which does not count them. */
  public long entries() {
    return current.entries();
  }

  ServedBuild current() {
    return current;
  }

  Writes writes() {
    return writes;
  }

  /**
   * Serves the index's current build from now on if it is not served already, and returns its id. Called every
   * {@link Options#POLL_MILLIS} and after a commit.
   */
  String refresh() throws IOException {
    synchronized (refreshLock) {
      if (root == null) {
        return current.id(); // a live index has one build, kept current in place
      }
      String id = new IndexLayout(root).currentBuildId();
      ServedBuild was = current;
      if (!id.equals(was.id())) {
        current = ServedBuild.open(options.index(), root, id);
        was.release();
      }
      return id;
    }
  }

  private void poll() {
    try {
      refresh();
    } catch (IOException | RuntimeException e) {
      // the build being served stays; a failure to read a new one is reported once per change of message
      logOnce("cannot read the index's current build, still serving " + current.id() + ": " + describeFailure(e));
    }
  }

  private String lastLogged;

  private synchronized void logOnce(String line) {
    if (!line.equals(lastLogged)) {
      lastLogged = line;
      log.println("pagemark resp: " + line);
    }
  }

  private void accept() {
    int next = 0;
    while (!closing) {
      SocketChannel ch;
      try {
        ch = listener.accept();
      } catch (IOException e) {
        if (!closing) {
          logOnce("accepting connections failed: " + e.getMessage());
        }
        return;
      }
      try {
        if (connected.get() >= options.maxClients()) {
          rejected.incrementAndGet();
          ch.write(ByteBuffer.wrap("-ERR max number of clients reached\r\n".getBytes(StandardCharsets.US_ASCII)));
          ch.close();
          continue;
        }
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        connected.incrementAndGet();
        loops[next].add(ch, ids.incrementAndGet());
        next = (next + 1) % loops.length;
      } catch (IOException e) {
        try {
          ch.close();
        } catch (IOException ignored) {
          // the client is gone
        }
      }
    }
  }

  void opened(Connection c) {
    clients.put(c.id, c);
  }

  void closed(Connection c) {
    clients.remove(c.id);
    connected.decrementAndGet();
  }

  Collection<Connection> clients() {
    return clients.values();
  }

  void loopFailed(Throwable e) {
    log.println("pagemark resp: an event loop failed: " + describeFailure(e));
    e.printStackTrace(log);
  }

  /** A failure as one line for an error reply or the log. */
  String describeFailure(Throwable e) {
    String m = e.getMessage();
    if (e instanceof java.nio.file.NoSuchFileException) {
      return "a file of the served build is missing (" + m + "); a newer build may have replaced it, retry";
    }
    return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
  }

  /** A client as Redis's {@code CLIENT LIST} describes it. */
  String describe(Connection c) {
    long now = System.currentTimeMillis();
    String addr;
    try {
      addr = String.valueOf(c.channel.getRemoteAddress()).replaceFirst("^/", "");
    } catch (IOException e) {
      addr = "?";
    }
    return "id=" + c.id + " addr=" + addr + " name=" + (c.name == null ? "" : c.name)
        + " age=" + (now - c.connectedMillis) / 1000 + " idle=" + (now - c.lastCommandMillis) / 1000
        + " db=0 cmd=" + c.lastCommand + " lib-name=" + (c.libName == null ? "" : c.libName)
        + " lib-ver=" + (c.libVersion == null ? "" : c.libVersion);
  }

  /** What {@code INFO} reports, by section. */
  java.util.Map<String, java.util.Map<String, String>> info() {
    return ServerInfo.sections(this, loops, connected.get(), ids.get(), rejected.get(), startedMillis);
  }

  /** Blocks until {@link #close} has finished (from another thread, or a shutdown hook). */
  public void awaitClose() throws InterruptedException {
    for (EventLoop l : loops) {
      l.thread.join();
    }
  }

  /**
   * Drains and stops: no new connections or requests; the replies under way (an append being made durable, a commit
   * running, a long range being sent) are finished for up to {@code 30 s}, then everything is closed.
   */
  @Override
  public void close() {
    if (closing) {
      return;
    }
    closing = true;
    try {
      listener.close();
    } catch (IOException e) {
      // the port is released when the process ends
    }
    watcher.shutdownNow();
    for (EventLoop l : loops) {
      l.drain();
    }
    if (writes != null) {
      writes.close(); // completes queued appends and the commit under way; their replies reach the loops
    }
    long deadline = System.currentTimeMillis() + 30_000;
    for (EventLoop l : loops) {
      try {
        l.thread.join(Math.max(1, deadline - System.currentTimeMillis()));
        if (l.thread.isAlive()) {
          l.stopNow();
          l.thread.join(5_000);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    current.release();
  }
}
