package io.pagemark.server.resp;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.commit.IndexCommit;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of {@code pagemark resp --wal}: changes go to the index's write-ahead log, the one
 * {@code pagemark stream} appends to, and {@code PM.COMMIT} folds it in as {@code pagemark commit} does. Appends are
 * group-committed on one thread: the changes of every request that arrived meanwhile are written as one segment per
 * group, forced to disk, and only then acknowledged, so a crash loses nothing a client was told is stored. Commits run
 * one at a time on another thread.
 */
final class Writes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Writes.class);

  /** One request's changes and what to call when they are durable (null) or not (the failure). */
  private record Append(String groupAttribute, List<KeyAttribute> attributes, List<IndexChange> changes,
      java.util.function.Consumer<Throwable> done) {}

  private static final Append STOP = new Append(null, null, null, null);

  private final Path root;
  private final DynamoConnection ties;
  private final Wal wal;
  private final LinkedBlockingQueue<Append> queue = new LinkedBlockingQueue<>();
  private final Thread appender;
  private final ExecutorService committer;
  private final AtomicLong lastMicros = new AtomicLong();
  private final AtomicLong appended = new AtomicLong();
  private final AtomicLong segments = new AtomicLong();

  /**
   * @param root the index directory (its {@code wal/} folder receives the changes)
   * @param ties where to learn DynamoDB's order of equal sort keys when committing, or null (such runs are then
   *     marked unresolved, and page starts step around them)
   */
  Writes(Path root, DynamoConnection ties) {
    this.root = root;
    this.ties = ties;
    this.wal = new Wal(root);
    this.appender = new Thread(this::appendLoop, "pagemark-resp-wal");
    this.appender.setDaemon(true);
    this.appender.start();
    this.committer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "pagemark-resp-commit");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * A version newer than every one this server handed out before, so that a client's ZADD and a later ZREM of the
   * same item apply in the order they were acknowledged.
   */
  Version nextVersion() {
    long now = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
    return new Version(lastMicros.updateAndGet(last -> Math.max(last + 1, now)), "");
  }

  /** Appends changes durably; {@code done} gets null once they are on disk, or what went wrong. */
  void append(String groupAttribute, List<KeyAttribute> attributes, List<IndexChange> changes,
      java.util.function.Consumer<Throwable> done) {
    queue.add(new Append(groupAttribute, attributes, changes, done));
  }

  /** Runs {@code task} on the writer once every append queued before it is acknowledged. */
  void after(Runnable task) {
    queue.add(new Append(null, null, List.of(), failure -> task.run()));
  }

  /** Commits the log into a new build; {@code done} gets the result or what went wrong. */
  void commit(BiConsumer<IndexCommit.Result, Throwable> done) {
    committer.execute(() -> {
      IndexCommit c = IndexCommit.of(root);
      if (ties != null) {
        c = c.withTieResolution(ties);
      }
      IndexCommit.Result r;
      try {
        r = c.publish();
      } catch (IOException | RuntimeException e) {
        done.accept(null, e);
        return;
      }
      done.accept(r, null);
      // after the reply: removing the oldest build's files is not the client's wait (the next commit, on this same
      // thread, still waits for it)
      if (!r.nothingToCommit()) {
        try {
          c.prune();
        } catch (IOException | RuntimeException e) {
          LOG.warn("removing old builds after commit {} failed (the next commit tries again): {}", r.buildId(),
              e.toString());
        }
      }
    });
  }

  long changesAppended() {
    return appended.get();
  }

  long segmentsWritten() {
    return segments.get();
  }

  private void appendLoop() {
    List<Append> batch = new ArrayList<>();
    while (true) {
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        return;
      }
      queue.drainTo(batch);
      boolean stop = batch.remove(STOP);
      if (!batch.isEmpty()) {
        write(batch);
      }
      batch.clear();
      if (stop) {
        return;
      }
    }
  }

  /** Writes one segment per group (and declared schema) for a batch of requests, then acknowledges them. */
  private void write(List<Append> batch) {
    Map<List<Object>, List<IndexChange>> byGroup = new LinkedHashMap<>();
    Map<List<Object>, Append> schema = new LinkedHashMap<>();
    for (Append a : batch) {
      for (IndexChange c : a.changes()) {
        List<Object> key = List.of(c.group(), a.groupAttribute(), a.attributes());
        byGroup.computeIfAbsent(key, k -> new ArrayList<>()).add(c);
        schema.putIfAbsent(key, a);
      }
    }
    Map<List<Object>, Throwable> failed = new LinkedHashMap<>();
    for (Map.Entry<List<Object>, List<IndexChange>> e : byGroup.entrySet()) {
      Append a = schema.get(e.getKey());
      KeyValue group = (KeyValue) e.getKey().get(0);
      try {
        new WalSegment(a.groupAttribute(), group, a.attributes(), e.getValue())
            .write(wal.groupDir(group), Wal.newSegmentName());
        segments.incrementAndGet();
        appended.addAndGet(e.getValue().size());
      } catch (IOException | RuntimeException x) {
        failed.put(e.getKey(), x);
      }
    }
    for (Append a : batch) {
      Throwable failure = null;
      for (IndexChange c : a.changes()) {
        Throwable f = failed.get(List.of(c.group(), a.groupAttribute(), a.attributes()));
        failure = failure == null ? f : failure;
      }
      a.done().accept(failure);
    }
  }

  /** Finishes the appends already queued and the commit under way, then stops. */
  @Override
  public void close() {
    queue.add(STOP);
    committer.shutdown();
    try {
      appender.join(TimeUnit.SECONDS.toMillis(30));
      committer.awaitTermination(5, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
