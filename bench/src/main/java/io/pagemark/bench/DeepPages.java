package io.pagemark.bench;

import io.pagemark.dynamo.ItemKeys;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.demo.SampleComments;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;

/**
 * Figure 1, deep page cost: the DynamoDB requests and read capacity that page n costs through the index (a lookup,
 * then the Query, through {@link PageReader#read}) against walking {@code LastEvaluatedKey} from page 1 (what an offset layer without an
 * index does). The items of each page from both ways are compared, so a wrong page fails the run instead of printing
 * a figure.
 *
 * <p>The walk issues every Query up to {@link Sizes#walkedPages()}. Beyond it, DynamoDB Local's Query slows down with
 * the depth of its exclusive start key (a full walk to page 10,000 takes over ten minutes), so the walk is
 * <em>sampled</em>: every {@link Sizes#sampleEvery()}-th page's Query, and each measured page's, is issued exactly as
 * the walk issues it, from the previous page's last key (which the index holds), and must return 20 items and a
 * {@code LastEvaluatedKey} equal to the index's last key of that page (so the walk's cursor and the index agree
 * there). The walk to page n then costs the Queries issued up to {@code walkedPages} plus one Query per further page
 * (each sampled one was exactly one), and their read capacity scaled from the sampled pages' mean. The figure's note
 * says when it was sampled.
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
    int walked = Math.min(sizes.walkedPages(), deepest);
    context.progress().printf("bench: walking %,d pages of %d with LastEvaluatedKey%s ...%n", walked, size,
        walked < deepest ? String.format(", then every %,dth page to page %,d", sizes.sampleEvery(), deepest) : "");
    Walk walk = new Walk(table.client(), CommentsFixture.group());
    String note = String.format("one group of %,d comments on DynamoDB Local, %d a page, ascending", table.items(),
        size);
    String capacityNote = "; consumed capacity as DynamoDB Local reports it (ReturnConsumedCapacity=TOTAL)";
    long walkStarted = System.nanoTime();
    double walkSeconds = 0;
    Samples sampled = new Samples(Math.max(1, (deepest - walked) / sizes.sampleEvery() + sizes.deepPages().size()));
    double sampledCapacity = 0;
    int nextSample = walked + sizes.sampleEvery();
    try (Index index = Indexes.open(table.index().toString());
        GroupPages pages = index.group(CommentsFixture.group())) {
      PageReader<Map<String, AttributeValue>> reader =
          PageReader.of(table.client(), SampleComments.TABLE, SampleComments.GSI, index);
      for (int n : sizes.deepPages()) {
        ItemPage<Map<String, AttributeValue>> page = reader.read(CommentsFixture.group(), n, size, Order.ASC);
        List<Map<String, AttributeValue>> walkedItems;
        double walkRequests;
        double walkCapacity;
        String how;
        if (n <= walked) {
          walkedItems = walk.to(n, size);
          walkRequests = walk.requests;
          walkCapacity = walk.capacity;
          how = note;
        } else {
          if (walk.page < walked) {
            walk.to(walked, size);
            walkSeconds = (System.nanoTime() - walkStarted) / 1e9;
          }
          walkedItems = null;
          for (; nextSample <= n; nextSample += sizes.sampleEvery()) {
            Sample s = walk.sample(pages, nextSample, size);
            sampled.add(s.nanos);
            sampledCapacity += s.capacity;
            if (nextSample == n) {
              walkedItems = s.items;
            }
          }
          if (walkedItems == null) { // a measured page between two samples
            Sample s = walk.sample(pages, n, size);
            sampled.add(s.nanos);
            sampledCapacity += s.capacity;
            walkedItems = s.items;
          }
          walkRequests = walk.requests + (n - walked);
          walkCapacity = walk.capacity + sampledCapacity / sampled.count() * (n - walked);
          how = String.format("%s; SAMPLED: pages 1-%,d walked in full; of pages %,d-%,d, %,d Queries issued as"
              + " the walk issues them (every %,dth page, from the previous page's last key in the index; each"
              + " returned 20 items and the LastEvaluatedKey the index predicts), the rest counted as one Query each"
              + " with the sampled mean capacity", note, walked, walked + 1, n, sampled.count(), sizes.sampleEvery());
        }
        if (!page.items().equals(walkedItems)) {
          throw new IllegalStateException("page " + n + " through the index differs from DynamoDB's own walk");
        }
        context.report(new Figure(requestsName(n), page.requests(), "requests", "walk LastEvaluatedKey from page 1",
            walkRequests, "requests", how));
        context.report(new Figure(capacityName(n), page.consumedReadCapacity(), "RCU",
            "walk LastEvaluatedKey from page 1", walkCapacity, "RCU", how + capacityNote));
      }
    }
    if (walkSeconds == 0) {
      walkSeconds = (System.nanoTime() - walkStarted) / 1e9;
    }
    if (sampled.count() > 0) {
      double meanMillis = sampled.meanMicros() / 1e3;
      context.note(String.format("deep-pages: the walk's %,d Queries to page %,d took %.0f s; its %,d sampled Queries"
          + " beyond took %.0f ms on average (p50 %.0f ms, p99 %.0f ms): a full walk to page %,d would take about"
          + " %,.0f s more on DynamoDB Local here", walked, walked, walkSeconds, sampled.count(), meanMillis,
          sampled.percentileMicros(50) / 1e3, sampled.percentileMicros(99) / 1e3, deepest,
          meanMillis / 1e3 * (deepest - walked)));
    }
  }

  /** One Query of the walk issued on its own: its items, its read capacity and how long it took. */
  record Sample(List<Map<String, AttributeValue>> items, double capacity, long nanos) {}

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
        QueryResponse r = client.query(request(from, size - got.size()));
        requests++;
        capacity += capacity(r);
        got.addAll(r.items());
        from = r.hasLastEvaluatedKey() && !r.lastEvaluatedKey().isEmpty() ? r.lastEvaluatedKey() : null;
      } while (from != null && got.size() < size);
      if (got.isEmpty()) {
        throw new IllegalStateException("the walk ran out of items at page " + (page + 1));
      }
      return got;
    }

    /**
     * Issues the Query the walk issues for page {@code n} (n &ge; 2), from the previous page's last key as the index
     * holds it, without walking there; checks that it returns a full page and the {@code LastEvaluatedKey} the walk
     * would go on from (the index's last key of page n). Not counted in {@link #requests}.
     */
    Sample sample(GroupPages pages, long n, int size) throws java.io.IOException {
      Map<String, AttributeValue> previousLast = attributeValues(pages.keyAt((n - 1) * size - 1));
      Map<String, AttributeValue> last = attributeValues(pages.keyAt(n * size - 1));
      long t0 = System.nanoTime();
      QueryResponse r = client.query(request(previousLast, size));
      long nanos = System.nanoTime() - t0;
      if (r.items().size() != size || !r.hasLastEvaluatedKey() || !last.equals(r.lastEvaluatedKey())) {
        throw new IllegalStateException("the walk's Query for page " + n + " returned " + r.items().size()
            + " items and LastEvaluatedKey " + (r.hasLastEvaluatedKey() ? r.lastEvaluatedKey() : "none")
            + "; expected " + size + " items and " + last + " (the index's last key of the page)");
      }
      return new Sample(r.items(), capacity(r), nanos);
    }

    private static Map<String, AttributeValue> attributeValues(Map<String, KeyValue> key) {
      Map<String, AttributeValue> m = new HashMap<>();
      key.forEach((name, value) -> m.put(name, ItemKeys.attributeValue(value)));
      return m;
    }

    private QueryRequest request(Map<String, AttributeValue> exclusiveStartKey, int limit) {
      QueryRequest.Builder b = QueryRequest.builder().tableName(SampleComments.TABLE).indexName(SampleComments.GSI)
          .keyConditionExpression("PK2 = :g").expressionAttributeValues(Map.of(":g", AttributeValue.fromS(group)))
          .limit(limit).returnConsumedCapacity(ReturnConsumedCapacity.TOTAL);
      if (exclusiveStartKey != null) {
        b.exclusiveStartKey(exclusiveStartKey);
      }
      return b.build();
    }

    private static double capacity(QueryResponse r) {
      return r.consumedCapacity() != null && r.consumedCapacity().capacityUnits() != null
          ? r.consumedCapacity().capacityUnits() : 0;
    }
  }
}
