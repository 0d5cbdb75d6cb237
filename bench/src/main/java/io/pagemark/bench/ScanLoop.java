package io.pagemark.bench;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ScanRequest;
import software.amazon.awssdk.services.dynamodb.model.ScanResponse;

/**
 * The floor for reading a table: a plain parallel Scan with the AWS SDK, {@code threads} threads taking segments of
 * {@code totalSegments} from a shared counter and reading each to its end ({@code LastEvaluatedKey}), with the same
 * projection as the backfill's {@code ScanSegmentFn} (group key, stored key attributes, table key), counting items and
 * doing nothing else.
 */
final class ScanLoop {
  private ScanLoop() {}

  /** What one loop read and how long it took. */
  record Result(long items, double seconds) {
    double itemsPerSecond() {
      return items / seconds;
    }
  }

  static Result run(DynamoConnection connection, KeySchema schema, int totalSegments, int threads)
      throws Exception {
    List<String> names = new ArrayList<>();
    names.add(schema.groupAttribute());
    schema.storedAttributes().forEach(a -> names.add(a.name()));
    names.addAll(schema.primaryKeyNames());
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(names));
    Map<String, String> aliases = new HashMap<>();
    List<String> projection = new ArrayList<>();
    for (int i = 0; i < distinct.size(); i++) {
      aliases.put("#k" + i, distinct.get(i));
      projection.add("#k" + i);
    }
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long started = System.nanoTime();
    try {
      List<Future<Long>> counts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        counts.add(pool.submit(() -> {
          long items = 0;
          try (DynamoDbClient client = connection.client()) {
            for (int segment; (segment = next.getAndIncrement()) < totalSegments; ) {
              Map<String, AttributeValue> start = null;
              do {
                ScanRequest.Builder req = ScanRequest.builder().tableName(schema.table()).segment(segment)
                    .totalSegments(totalSegments).projectionExpression(String.join(",", projection))
                    .expressionAttributeNames(aliases);
                if (start != null) {
                  req.exclusiveStartKey(start);
                }
                ScanResponse page = client.scan(req.build());
                items += page.items().size();
                start = page.hasLastEvaluatedKey() && !page.lastEvaluatedKey().isEmpty()
                    ? page.lastEvaluatedKey() : null;
              } while (start != null);
            }
          }
          return items;
        }));
      }
      long items = 0;
      for (Future<Long> f : counts) {
        items += f.get();
      }
      return new Result(items, (System.nanoTime() - started) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }
}
