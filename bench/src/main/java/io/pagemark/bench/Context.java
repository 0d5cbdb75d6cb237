package io.pagemark.bench;

import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.RedisCluster;
import io.pagemark.testing.RedisServer;
import io.pagemark.testing.S3Proxy;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the benchmarks of one run share: a work directory, a progress stream, where figures go, the classpath for
 * child JVMs, and fixtures made once (DynamoDB Local, a redis-server, s3proxy, the deep-page table and its index in files and
 * in Redis). Closing it stops what it started.
 */
public final class Context implements AutoCloseable {
  private final Path work;
  private final PrintStream progress;
  private final Consumer<Figure> sink;
  private final Sizes sizes;
  private DynamoDbLocal dynamo;
  private RedisServer redis;
  private RedisCluster redisCluster;
  private S3Proxy s3;
  private CommentsFixture comments;
  private final List<String> notes = new ArrayList<>();

  Context(Path work, PrintStream progress, Consumer<Figure> sink, Sizes sizes) {
    this.work = work;
    this.progress = progress;
    this.sink = sink;
    this.sizes = sizes;
  }

  /** A fresh directory under the run's work directory. */
  public Path dir(String name) throws IOException {
    Path d = work.resolve(name);
    Files.createDirectories(d);
    return d;
  }

  public PrintStream progress() {
    return progress;
  }

  public void report(Figure f) {
    sink.accept(f);
  }

  /** A remark for the results file (how something was measured, what was not possible). */
  public void note(String text) {
    notes.add(text);
    progress.println("note: " + text);
  }

  List<String> notes() {
    return notes;
  }

  /** DynamoDB Local, started on first use in a JVM of its own. */
  public DynamoDbLocal dynamo() throws IOException {
    if (dynamo == null) {
      progress.println("bench: starting DynamoDB Local ...");
      dynamo = DynamoDbLocal.start();
    }
    return dynamo;
  }

  /**
   * A redis-server of its own on a free loopback port, started on first use ({@code bin/ensure-redis} installs it
   * when missing; if it cannot start, this throws with its log).
   */
  public RedisServer redis() throws IOException {
    if (redis == null) {
      progress.println("bench: starting redis-server ...");
      redis = RedisServer.start();
    }
    return redis;
  }

  /**
   * A 3-master Redis Cluster of its own on loopback, started on first use (as {@link #redis()}; if it cannot form,
   * this throws with its logs).
   */
  public RedisCluster redisCluster() throws IOException {
    if (redisCluster == null) {
      progress.println("bench: starting a Redis Cluster ...");
      redisCluster = RedisCluster.start();
    }
    return redisCluster;
  }

  /** s3proxy (a real S3 API) on a free loopback port, started on first use; throws with its log if it cannot. */
  public S3Proxy s3() throws IOException {
    if (s3 == null) {
      progress.println("bench: starting s3proxy ...");
      s3 = S3Proxy.start();
    }
    return s3;
  }

  /** The deep-page table (one group of {@link Sizes#deepItems()} comments) and its index, made on first use. */
  public CommentsFixture comments() throws Exception {
    if (comments == null) {
      comments = CommentsFixture.create(this, sizes.deepItems());
    }
    return comments;
  }

  @Override
  public void close() {
    if (comments != null) {
      comments.close();
    }
    if (dynamo != null) {
      dynamo.close();
    }
    if (s3 != null) {
      s3.close();
    }
    if (redis != null) {
      redis.close();
    }
    if (redisCluster != null) {
      redisCluster.close();
    }
  }
}
