package io.pagemark.bench;

import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageQuery;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.SampleComments;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * Figure 1, deep page cost: the DynamoDB requests and read capacity that page n costs through the index (a lookup,
 * then {@link PageQuery#fetch}) against walking {@code LastEvaluatedKey} from page 1 (what an offset layer without an
 * index does). One walk to the deepest page gives the baseline for every n (the walk to page n is its prefix); the
 * items of each page from both ways are compared, so a wrong page fails the run instead of printing a figure.
 */
final class DeepPages implements Bench {
  @Override
  public String id() {
    return "deep-pages";
  }

  static String requestsName(int page) {
    return "page " + page + " DynamoDB requests, index vs LastEvaluatedKey walk";
  }

  static String capacityName(int page) {
    return "page " + page + " read capacity, index vs LastEvaluatedKey walk";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    List<String> names = new ArrayList<>();
    for (int n : sizes.deepPages()) {
      names.add(requestsName(n));
      names.add(capacityName(n));
    }
    return names;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    CommentsFixture table = context.comments();
    int size = Sizes.PAGE_SIZE;
    int deepest = sizes.deepPages().get(sizes.deepPages().size() - 1);
    PageQuery query = new PageQuery(table.client(), SampleComments.TABLE, SampleComments.GSI, "PK2");
    context.progress().printf("bench: walking %,d pages of %d with LastEvaluatedKey ...%n", deepest, size);
    Walk walk = new Walk(table.client(), CommentsFixture.group());
    String note = String.format("one group of %,d comments on DynamoDB Local, %d a page, ascending", table.items(),
        size);
    try (GroupPages pages = table.open()) {
      for (int n : sizes.deepPages()) {
        List<Map<String, AttributeValue>> walked = walk.to(n, size);
        PageStart start = pages.pageStart(n, size, Order.ASC);
        PageQuery.Page page = query.fetch(start);
        if (!page.items().equals(walked)) {
          throw new IllegalStateException("page " + n + " through the index differs from DynamoDB's own walk");
        }
        context.report(new Figure(requestsName(n), page.requests(), "requests", "walk LastEvaluatedKey from page 1",
            walk.requests, "requests", note));
        context.report(new Figure(capacityName(n), page.consumedReadCapacity(), "RCU",
            "walk LastEvaluatedKey from page 1", walk.capacity, "RCU", note + "; consumed capacity as DynamoDB Local"
            + " reports it (ReturnConsumedCapacity=TOTAL)"));
      }
    }
  }

  /** DynamoDB's own way to page n: Query page after page, each from the previous one's LastEvaluatedKey. */
  static final class Walk {
    private final DynamoDbClient client;
    private final String group;
    private Map<String, AttributeValue> from;
    private long page;
    long requests;
    double capacity;

    Walk(DynamoDbClient client, String group) {
      this.client = client;
      this.group = group;
    }

    /** Walks on to page {@code n} (not before the current one) and returns its items. */
    List<Map<String, AttributeValue>> to(long n, int size) {
      List<Map<String, AttributeValue>> items = List.of();
      while (page < n) {
        items = next(size);
        page++;
      }
      return items;
    }

    private List<Map<String, AttributeValue>> next(int size) {
      List<Map<String, AttributeValue>> got = new ArrayList<>();
      do {
        QueryRequest.Builder b = QueryRequest.builder().tableName(SampleComments.TABLE).indexName(SampleComments.GSI)
            .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(group)))
            .limit(size - got.size()).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
        if (from != null) {
          b.exclusiveStartKey(from);
        }
        QueryResponse r = client.query(b.build());
        requests++;
        if (r.consumedCapacity() != null && r.consumedCapacity().capacityUnits() != null) {
          capacity += r.consumedCapacity().capacityUnits();
        }
        got.addAll(r.items());
        from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      } while (from != null && got.size() < size);
      if (got.isEmpty()) {
        throw new IllegalStateException("the walk ran out of items at page " + (page + 1));
      }
      return got;
    }
  }
}
