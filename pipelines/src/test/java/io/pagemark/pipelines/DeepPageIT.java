package io.pagemark.pipelines;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;

import static io.pagemark.pipelines.BackfillIT.backfill;
import static io.pagemark.pipelines.BackfillIT.cli;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.BackfillIT.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * A deep page of a big group costs what page 1 costs: one group of 200,000 items, built once; page 10,000 of 20 in
 * either order takes at most 2 Query requests (one, unless DynamoDB stops a read at 1 MB).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(DynamoDbLocalExtension.class)
class DeepPageIT {
  static final String TABLE = "deep";
  static final String GSI = "byTime";
  static final int ITEMS = 200_000;
  static final int PAGE_SIZE = 20;
  @TempDir static Path dir;
  DynamoDbLocal local;
  DynamoDbClient client;
  Path index;

  @BeforeAll
  void loadAndBuild(DynamoDbLocal local) throws Exception {
    this.local = local;
    client = local.client();
    client.createTable(b -> b.tableName(TABLE).billingMode(BillingMode.PAY_PER_REQUEST)
        .attributeDefinitions(def("PK"), def("PK2"), def("SK"))
        .keySchema(KeySchemaElement.builder().attributeName("PK").keyType(KeyType.HASH).build())
        .globalSecondaryIndexes(GlobalSecondaryIndex.builder().indexName(GSI)
            .keySchema(KeySchemaElement.builder().attributeName("PK2").keyType(KeyType.HASH).build(),
                KeySchemaElement.builder().attributeName("SK").keyType(KeyType.RANGE).build())
            .projection(Projection.builder().projectionType(ProjectionType.ALL).build()).build()));
    List<Map<String, AttributeValue>> items = new ArrayList<>(ITEMS);
    for (int i = 0; i < ITEMS; i++) {
      // Item i has sort key rank i; the primary key is shuffled so that the table order tells nothing.
      items.add(Map.of("PK", AttributeValue.fromS(String.format("c%06d", (i * 7919L) % ITEMS)),
          "PK2", AttributeValue.fromS("hot"), "SK", AttributeValue.fromS(sortKey(i))));
    }
    long t0 = System.nanoTime();
    SampleComments.load(client, TABLE, items, 4, null);
    long t1 = System.nanoTime();
    index = dir.resolve("index");
    Result r = backfill(local, "--table=" + TABLE, "--gsi=" + GSI, "--output=" + index, "--segments=4",
        "--enforceImmutability=false", "--enforceEncodability=false");
    assertThat(r.err(), r.code(), is(0));
    System.out.printf("DeepPageIT: loaded %,d items in %.1f s, built the index in %.1f s%n", ITEMS,
        (t1 - t0) / 1e9, (System.nanoTime() - t1) / 1e9);
  }

  private static AttributeDefinition def(String name) {
    return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
  }

  private static String sortKey(int rank) {
    return String.format("2024-%06d", rank);
  }

  @AfterAll
  void close() {
    client.close();
  }

  @Test
  void page10000Of200000ItemsCostsAtMostTwoQueries() throws Exception {
    try (Index idx = Indexes.open(index.toString())) {
      PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, TABLE, GSI, idx);
      for (Order order : Order.values()) {
        ItemPage<Map<String, AttributeValue>> first = reader.read("hot", 1, PAGE_SIZE, order);
        ItemPage<Map<String, AttributeValue>> deep = reader.read("hot", 10_000, PAGE_SIZE, order);
        assertThat(deep.pages(), is(10_000L));
        assertThat(deep.count(), is((long) ITEMS));
        assertThat(order + ": Query requests for page 10,000", deep.requests(), lessThanOrEqualTo(2));
        assertThat(deep.stale(), is(false));
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < PAGE_SIZE; i++) {
          int rank = 9_999 * PAGE_SIZE + i;
          expected.add(sortKey(order == Order.ASC ? rank : ITEMS - 1 - rank));
        }
        assertThat(order.toString(), sortKeys(deep), equalTo(expected));
        assertThat(deep.consumedReadCapacity(), equalTo(first.consumedReadCapacity()));
        System.out.printf("DeepPageIT %s: page 1: %d request(s), %.1f RCU; page 10,000: %d request(s), %.1f RCU%n",
            order.label(), first.requests(), first.consumedReadCapacity(), deep.requests(),
            deep.consumedReadCapacity());
      }
    }
  }

  @Test
  void theCliReportsTheSameCostForPage1AndPage10000() {
    for (String page : List.of("1", "10000")) {
      Result r = cli("page", "--table=" + TABLE, "--gsi=" + GSI, "--index=" + index, "--group=hot", "--page=" + page,
          "--pageSize=" + PAGE_SIZE, "--order=desc", "--dynamoEndpoint=" + local.endpoint());
      assertThat(r.err(), r.code(), is(0));
      assertThat(r.err(), containsString("20 items, 1 Query request, "));
      System.out.print("DeepPageIT CLI: " + r.err());
    }
  }

  private static List<String> sortKeys(ItemPage<Map<String, AttributeValue>> page) {
    return page.items().stream().map(i -> i.get("SK").s()).collect(Collectors.toList());
  }
}
