package io.pagemark.pipelines.demo;

import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.PutRequest;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

/**
 * The demo's table: {@code comments}, keyed by comment id ({@code PK}) and datetime ({@code SK}), with the product
 * SKU in {@code PK2} and a GSI {@code byProduct} on ({@code PK2}, {@code SK}). The generated comments are
 * deterministic for a seed: one hot product with thousands of comments, a few warm ones, a long tail, and some
 * comments imported in bulk with the same timestamp (equal sort keys).
 */
public final class SampleComments {
  public static final String TABLE = "comments";
  public static final String GSI = "byProduct";

  private SampleComments() {}

  public static void createTable(DynamoDbClient c) {
    createTable(c, TABLE);
  }

  /** Creates a table shaped like {@code comments} under another name. */
  public static void createTable(DynamoDbClient c, String table) {
    c.createTable(
        b ->
            b.tableName(table)
                .billingMode(BillingMode.PAY_PER_REQUEST)
                .attributeDefinitions(
                    AttributeDefinition.builder().attributeName("PK").attributeType(ScalarAttributeType.S).build(),
                    AttributeDefinition.builder().attributeName("SK").attributeType(ScalarAttributeType.S).build(),
                    AttributeDefinition.builder().attributeName("PK2").attributeType(ScalarAttributeType.S).build())
                .keySchema(
                    KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build(),
                    KeySchemaElement.builder().attributeName("SK").keyType(KeyType.RANGE).build())
                .globalSecondaryIndexes(
                    GlobalSecondaryIndex.builder()
                        .indexName(GSI)
                        .keySchema(
                            KeySchemaElement.builder().attributeName("PK2").keyType(KeyType.HASH).build(),
                            KeySchemaElement.builder().attributeName("SK").keyType(KeyType.RANGE).build())
                        .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                        .build()));
  }

  /** The product SKU of the hot product (the one with the most comments). */
  public static String hotProduct() {
    return product(0);
  }

  static String product(int i) {
    return String.format("SKU-%05d", i);
  }

  /** Generates {@code count} comments over {@code products} products. */
  public static List<Map<String, AttributeValue>> generate(int count, int products, long seed) {
    Random r = new Random(seed);
    Instant base = Instant.parse("2024-01-01T00:00:00Z");
    long spanSeconds = ChronoUnit.SECONDS.between(base, Instant.parse("2026-11-01T00:00:00Z"));
    List<Map<String, AttributeValue>> items = new ArrayList<>(count);
    String bulkTime = null;
    for (int i = 0; i < count; i++) {
      int p;
      double u = r.nextDouble();
      if (u < 0.14) {
        p = 0; // the hot product: about 7,000 of 50,000
      } else if (u < 0.30) {
        p = 1 + r.nextInt(4); // four warm products: about 2,000 each
      } else {
        p = 5 + r.nextInt(Math.max(1, products - 5));
      }
      String sk;
      if (bulkTime != null && r.nextInt(4) != 0) {
        sk = bulkTime; // part of a bulk import: same timestamp
      } else {
        sk = base.plusSeconds((long) (r.nextDouble() * spanSeconds)).toString();
        bulkTime = r.nextInt(200) == 0 ? sk : null;
      }
      Map<String, AttributeValue> item = new HashMap<>();
      item.put("PK", AttributeValue.fromS(String.format("comment-%07d", i)));
      item.put("SK", AttributeValue.fromS(sk));
      item.put("PK2", AttributeValue.fromS(product(p)));
      item.put("author", AttributeValue.fromS("user" + r.nextInt(5000)));
      item.put("rating", AttributeValue.fromN(Integer.toString(1 + r.nextInt(5))));
      item.put("text", AttributeValue.fromS(TEXTS[r.nextInt(TEXTS.length)]));
      items.add(item);
    }
    return items;
  }

  private static final String[] TEXTS = {
    "Works as described.", "Arrived late but fine.", "Would buy again!", "Not what I expected.",
    "Great value for the price.", "Broke after a week.", "Five stars, no notes.", "Sturdy and well made.",
  };

  /**
   * Writes items with BatchWriteItem (25 at a time, unprocessed items retried) on a few threads, printing progress
   * to {@code progress} when it is not null.
   */
  public static void load(DynamoDbClient c, String table, List<Map<String, AttributeValue>> items, int threads,
      PrintStream progress) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicLong done = new AtomicLong();
    long started = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (int from = 0; from < items.size(); from += 25) {
      List<Map<String, AttributeValue>> batch = items.subList(from, Math.min(items.size(), from + 25));
      futures.add(pool.submit(() -> {
        writeBatch(c, table, batch);
        long d = done.addAndGet(batch.size());
        if (progress != null && (d % 5000 < 25 || d == items.size())) {
          double secs = (System.nanoTime() - started) / 1e9;
          progress.printf("loading: %,d of %,d items (%.0f%%, %,.0f/s)%n", d, items.size(),
              100.0 * d / items.size(), d / Math.max(secs, 0.001));
        }
        return null;
      }));
    }
    pool.shutdown();
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("loading items failed: " + e.getCause().getMessage(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  static void writeBatch(DynamoDbClient c, String table, List<Map<String, AttributeValue>> batch) {
    List<WriteRequest> requests = new ArrayList<>();
    for (Map<String, AttributeValue> item : batch) {
      requests.add(WriteRequest.builder().putRequest(PutRequest.builder().item(item).build()).build());
    }
    Map<String, List<WriteRequest>> pending = Map.of(table, requests);
    for (int attempt = 0; !pending.isEmpty(); attempt++) {
      if (attempt > 20) {
        throw new IllegalStateException("DynamoDB kept items unprocessed after 20 attempts");
      }
      Map<String, List<WriteRequest>> send = pending;
      BatchWriteItemResponse r = c.batchWriteItem(b -> b.requestItems(send));
      pending = r.hasUnprocessedItems() ? r.unprocessedItems() : Map.of();
      if (!pending.isEmpty()) {
        try {
          Thread.sleep(Math.min(1000, 20L << attempt));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while loading", e);
        }
      }
    }
  }
}
