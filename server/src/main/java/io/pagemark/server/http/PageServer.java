package io.pagemark.server.http;

import com.sun.net.httpserver.HttpServer;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.PageMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.core.retry.backoff.FullJitterBackoffStrategy;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark serve} as an object: numbered pages of an index over HTTP (the JSON API, the web page, OpenAPI,
 * health and Prometheus metrics) on the JDK's own HTTP server with a bounded pool of request threads. It reads the
 * index through {@link Indexes#open}, so any store works, and each page with one DynamoDB Query through
 * {@link io.pagemark.lookup.PageReader}. Closing it stops the server, waits briefly for requests in flight, and
 * releases the index and the DynamoDB client.
 *
 * <pre>{@code
 * try (PageServer server = PageServer.start(ServeConfig.of("/data/index", "comments", "byProduct",
 *     new DynamoConnection(null, "eu-west-1")))) {
 *   System.out.println(server.url()); // http://127.0.0.1:8080/
 *   server.awaitStop();
 * }
 * }</pre>
 */
public final class PageServer implements AutoCloseable {
  static {
    // The JDK server writes a response's headers and its body separately; with Nagle's algorithm on, the body waits
    // for the client's delayed ACK of the headers, about 40 ms per response on a keep-alive connection (measured:
    // p50 44 ms without, 0.14 ms with). The server reads this once, when the JVM creates its first HTTP server.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  /** Requests waiting for a thread beyond this many are refused (the connection is closed): the server sheds load. */
  static final int QUEUE = 1024;

  private final HttpServer http;
  private final ThreadPoolExecutor executor;
  private final Builds builds;
  private final DynamoDbClient dynamo;
  private final ServeConfig config;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicBoolean closing = new AtomicBoolean();

  private PageServer(HttpServer http, ThreadPoolExecutor executor, Builds builds, DynamoDbClient dynamo,
      ServeConfig config) {
    this.http = http;
    this.executor = executor;
    this.builds = builds;
    this.dynamo = dynamo;
    this.config = config;
  }

  /**
   * Opens the index's current build (so that a wrong {@code --index} fails here, not on the first request), binds
   * the address and starts serving.
   *
   * @throws IOException when the index cannot be opened or the address cannot be bound
   */
  public static PageServer start(ServeConfig config) throws IOException {
    return start(config, (spec, build) -> build == null ? Indexes.open(spec) : Indexes.open(spec, build));
  }

  static PageServer start(ServeConfig config, Builds.Opener opener) throws IOException {
    Builds builds = new Builds(config.index(), opener, config.refresh().toNanos(), System::nanoTime);
    DynamoDbClient dynamo = null;
    ThreadPoolExecutor executor = null;
    try {
      try (Builds.Lease first = builds.current()) {
        first.index(); // fails fast on a wrong --index
      }
      dynamo = client(config.dynamo(), config.threads());
      PageMetrics pageMetrics = new PageMetrics();
      ServerMetrics metrics = new ServerMetrics(pageMetrics);
      PageService service = new PageService(builds, dynamo, config, pageMetrics);
      HttpServer http = HttpServer.create(new InetSocketAddress(config.bind(), config.port()), 0);
      executor = new ThreadPoolExecutor(config.threads(), config.threads(), 60, TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(QUEUE), threads(), new ThreadPoolExecutor.AbortPolicy());
      http.createContext("/", new ServeHandler(service, metrics));
      http.setExecutor(executor);
      http.start();
      return new PageServer(http, executor, builds, dynamo, config);
    } catch (IOException | RuntimeException e) {
      builds.close();
      if (dynamo != null) {
        dynamo.close();
      }
      if (executor != null) {
        executor.shutdownNow();
      }
      throw e;
    }
  }

  /** The server's base URL, such as {@code http://127.0.0.1:8080/}. */
  public URI url() {
    InetSocketAddress a = http.getAddress();
    String host = a.getAddress().getHostAddress();
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return URI.create("http://" + host + ":" + a.getPort() + "/");
  }

  public int port() {
    return http.getAddress().getPort();
  }

  public ServeConfig config() {
    return config;
  }

  /** Blocks until {@link #close()} has been called (by another thread or a shutdown hook). */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  /**
   * A DynamoDB client for serving: a pooled HTTP client with a connection per request thread, and few quick
   * retries (a page request should fail fast with 503 and Retry-After rather than hold its client for the minutes a
   * batch job's retry policy waits).
   */
  static DynamoDbClient client(DynamoConnection c, int connections) {
    var b = DynamoDbClient.builder()
        .region(Region.of(c.region()))
        .credentialsProvider(DynamoConnection.credentialsFor(c.endpoint()))
        .httpClient(ApacheHttpClient.builder().maxConnections(connections)
            .connectionTimeout(Duration.ofSeconds(2)).socketTimeout(Duration.ofSeconds(10)).build())
        .overrideConfiguration(o -> o
            .retryPolicy(RetryPolicy.builder().numRetries(2)
                .backoffStrategy(FullJitterBackoffStrategy.builder().baseDelay(Duration.ofMillis(25))
                    .maxBackoffTime(Duration.ofMillis(500)).build())
                .build())
            .apiCallTimeout(Duration.ofSeconds(15))
            .addExecutionInterceptor(new RequestTiming()));
    if (c.endpoint() != null) {
      b.endpointOverride(URI.create(c.endpoint()));
    }
    return b.build();
  }

  private static ThreadFactory threads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "pagemark-serve-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Stops accepting requests, gives those in flight up to a second, then releases everything. Idempotent. */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    http.stop(1);
    executor.shutdown();
    try {
      if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      executor.shutdownNow();
    }
    builds.close();
    dynamo.close();
    stopped.countDown();
  }
}
