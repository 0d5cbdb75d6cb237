package io.pagemark.bench;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * A probe of DynamoDB Local, not a figure: does an ascending Query of a base table keyed (group, sort key) cost the
 * same at any depth of its {@code ExclusiveStartKey}? It loads one group of the demo's comments (default 200,020) into
 * a table keyed ({@code PK2}, {@code PK}) with no GSI, then times, in turns, one page of 20 from page 1, 100, 1,000,
 * 5,000 and the last, each asked once with {@code ExclusiveStartKey} and once with the key condition {@code PK > :s}
 * (the same page when the table's keys are unique), and prints p50, min and p90 per page and way. Every answer's
 * first item is checked. Run: {@code java -cp "bench/target/classes:$(cat bench/target/runtime-classpath.txt)"
 * -Dpagemark.dynamodbLocal.home=testing/dynamodb-local/target io.pagemark.bench.QueryDepthProbe [ITEMS]}.
 */
public final class QueryDepthProbe {
  private static final String TABLE = "comments_by_product";
  private static final int ROUNDS = 30;

  private QueryDepthProbe() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200_020;
    String group = CommentsFixture.group();
    try (DynamoDbLocal dynamo = DynamoDbLocal.start(); DynamoDbClient c = dynamo.client()) {
      c.createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
          .attributeDefinitions(
              AttributeDefinition.builder().attributeName("PK2").attributeType(ScalarAttributeType.S).build(),
              AttributeDefinition.builder().attributeName("PK").attributeType(ScalarAttributeType.S).build())
          .keySchema(KeySchemaElement.builder().attributeName("PK2").keyType(KeyType.HASH).build(),
              KeySchemaElement.builder().attributeName("PK").keyType(KeyType.RANGE).build()));
      List<Map<String, AttributeValue>> items = new ArrayList<>(n);
      List<String> ids = new ArrayList<>(n);
      for (Map<String, AttributeValue> comment : SampleComments.generate(n, 300, 42)) {
        Map<String, AttributeValue> one = new HashMap<>(comment);
        one.put("PK2", AttributeValue.fromS(group));
        items.add(one);
        ids.add(one.get("PK").s());
      }
      ids.sort(null); // the table's order of its sort key: these ids are ASCII, so UTF-8 byte order
      long t0 = System.nanoTime();
      SampleComments.load(c, TABLE, items, 4, null);
      System.out.printf("loaded %,d items of group %s into a table keyed (PK2, PK), no GSI, in %.0f s; load average"
          + " %s%n", n, group, (System.nanoTime() - t0) / 1e9, ResultsTable.loadAverage());
      int last = (n + 19) / 20;
      int[] pages = {1, 100, 1_000, 5_000, last};
      Samples[][] times = new Samples[pages.length][2];
      for (Samples[] s : times) {
        s[0] = new Samples(ROUNDS);
        s[1] = new Samples(ROUNDS);
      }
      for (int round = -5; round < ROUNDS; round++) { // 5 rounds of warm-up
        for (int p = 0; p < pages.length; p++) {
          if (pages[p] > last) {
            continue;
          }
          for (int way = 0; way < 2; way++) {
            long nanos = timeQuery(c, group, ids, pages[p], way == 1);
            if (round >= 0) {
              times[p][way].add(nanos);
            }
          }
        }
      }
      System.out.printf("%8s  %-34s  %-34s%n", "page", "ExclusiveStartKey p50/min/p90 ms", "PK > :s p50/min/p90 ms");
      for (int p = 0; p < pages.length; p++) {
        if (pages[p] <= last) {
          System.out.printf("%,8d  %-34s  %-34s%n", pages[p], stats(times[p][0]), stats(times[p][1]));
        }
      }
      System.out.println("load average at the end: " + ResultsTable.loadAverage());
    }
  }

  private static long timeQuery(DynamoDbClient c, String group, List<String> ids, int page, boolean keyCondition) {
    QueryRequest.Builder q = QueryRequest.builder().tableName(TABLE).limit(20);
    String previous = page == 1 ? null : ids.get(20 * (page - 1) - 1);
    if (previous != null && keyCondition) {
      q.keyConditionExpression("PK2 = :g AND PK > :s").expressionAttributeValues(
          Map.of(":g", AttributeValue.fromS(group), ":s", AttributeValue.fromS(previous)));
    } else {
      q.keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(group)));
      if (previous != null) {
        q.exclusiveStartKey(Map.of("PK2", AttributeValue.fromS(group), "PK", AttributeValue.fromS(previous)));
      }
    }
    long t0 = System.nanoTime();
    QueryResponse r = c.query(q.build());
    long nanos = System.nanoTime() - t0;
    String first = r.items().isEmpty() ? null : r.items().get(0).get("PK").s();
    if (!ids.get(20 * (page - 1)).equals(first)) {
      throw new IllegalStateException("page " + page + " starts at " + first + ", not " + ids.get(20 * (page - 1)));
    }
    return nanos;
  }

  private static String stats(Samples s) {
    return String.format("%.1f / %.1f / %.1f", s.percentileMicros(50) / 1e3, s.percentileMicros(1) / 1e3,
        s.percentileMicros(90) / 1e3);
  }
}
