package io.pagemark.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * Writes new and moved comments to the demo table at a steady rate, from several threads paced by one shared schedule:
 * write i is due {@code i / rate} seconds after the start, each thread claims the next batch of due writes and sends
 * it when its last write is due (one {@code PutItem}, or one {@code BatchWriteItem} of up to 25 at high rates). A
 * thread that falls behind sends at once, so the rate reached is the rate asked unless DynamoDB Local itself cannot
 * take it. A benchmark measures lag from each change's own creation time, so batching delays no change's lag.
 */
final class PacedWriter {
  static final int THREADS = 4;

  private PacedWriter() {}

  /** What a window wrote: the writes made and the seconds from the window's start to the last write's answer. */
  record Window(long writes, double seconds) {
    double rate() {
      return writes / seconds;
    }
  }

  /** Writes per request at {@code rate}: one at low rates, so that changes stay evenly spread; at most 25. */
  static int batchSize(int rate) {
    return Math.max(1, Math.min(25, rate / 50));
  }

  /**
   * Writes at {@code rate} per second for {@code seconds}, items numbered from {@code firstId} (their text), and
   * returns once every write has been answered.
   *
   * @throws Exception the first write that failed
   */
  static Window write(DynamoDbClient client, String table, int rate, int seconds, long firstId) throws Exception {
    int batch = batchSize(rate);
    long total = (long) rate * seconds;
    AtomicLong next = new AtomicLong();
    AtomicLong written = new AtomicLong();
    long start = System.nanoTime();
    ExecutorService threads = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        running.add(threads.submit(() -> {
          for (long first = next.getAndAdd(batch); first < total; first = next.getAndAdd(batch)) {
            long n = Math.min(batch, total - first);
            long wait = start + (first + n - 1) * 1_000_000_000L / rate - System.nanoTime();
            if (wait > 0) {
              Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
            written.addAndGet(send(client, table, firstId + first, n));
          }
          return null;
        }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      threads.shutdownNow();
    }
    return new Window(written.get(), (System.nanoTime() - start) / 1e9);
  }

  /** Writes items {@code id .. id + n - 1}; returns how many were written (a key drawn twice in a batch, once). */
  private static long send(DynamoDbClient client, String table, long id, long n) {
    if (n == 1) {
      client.putItem(b -> b.tableName(table).item(item(id)));
      return 1;
    }
    List<WriteRequest> requests = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    for (long i = id; i < id + n; i++) {
      Map<String, AttributeValue> item = item(i);
      // BatchWriteItem refuses two requests for one key
      if (keys.add(item.get("PK").s() + "\u0000" + item.get("SK").s())) {
        requests.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
      }
    }
    Map<String, List<WriteRequest>> pending = Map.of(table, requests);
    while (!pending.isEmpty()) {
      Map<String, List<WriteRequest>> asked = pending;
      BatchWriteItemResponse r = client.batchWriteItem(b -> b.requestItems(asked));
      pending = r.hasUnprocessedItems() ? r.unprocessedItems() : Map.of();
      pending = pending.values().stream().allMatch(List::isEmpty) ? Map.of() : pending;
    }
    return requests.size();
  }

  /** A new comment, or an edit that moves an earlier one to another product or time: item {@code id}, reproducibly. */
  static Map<String, AttributeValue> item(long id) {
    SplittableRandom r = new SplittableRandom(7 + id);
    Map<String, AttributeValue> item = new HashMap<>();
    item.put("PK", AttributeValue.fromS(String.format("live-%07d", r.nextInt(5000))));
    item.put("SK", AttributeValue.fromS(Instant.ofEpochSecond(1_750_000_000L + r.nextInt(1_000_000)).toString()));
    item.put("PK2", AttributeValue.fromS(String.format("SKU-%05d", r.nextInt(50))));
    item.put("text", AttributeValue.fromS("live " + id));
    return item;
  }
}
