package io.pagemark.pipelines.union;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.lookup.UnionCursor;
import io.pagemark.lookup.UnionPage;
import io.pagemark.pipelines.PageWalk;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * One union checked end to end on any store: every page, both orders, read through the store's index by cursor from
 * page 1 on, equals the merge of the groups' own DynamoDB walks, and the last page hands out no cursor. For the ITs that
 * already build an index into a store (PostgreSQL, S3, Redis Cluster), so that unions are checked on every backend.
 */
public final class UnionWalk {
  private UnionWalk() {}

  /** Walks the union of {@code groups} (S group keys) of {@code gsi} in {@code index}; returns the pages read. */
  public static int assertEveryPage(DynamoDbClient client, String table, String gsi, String sortAttribute,
      KeyType sortType, Index index, List<String> groups, int pageSize) throws Exception {
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, table, gsi, index);
    UnionCursor cursors = UnionCursor.withSecret("UnionWalk's secret, 16+ bytes".getBytes(StandardCharsets.UTF_8));
    List<KeyValue> keys = new ArrayList<>();
    groups.forEach(g -> keys.add(KeyValue.ofString(g)));
    int read = 0;
    for (Order order : Order.values()) {
      List<Map<String, AttributeValue>> merged =
          RatingsGroups.merged(client, table, gsi, sortAttribute, sortType, groups, order == Order.ASC);
      long pages = (merged.size() + pageSize - 1) / pageSize;
      UnionPage<Map<String, AttributeValue>> page = reader.read(keys, 1, pageSize, order);
      for (int n = 1; ; n++) {
        String what = index.buildId() + " union " + groups + " page " + n + " " + order;
        assertThat(what, PageWalk.keys(page.items()),
            equalTo(PageWalk.keys(merged.subList((n - 1) * pageSize, Math.min(merged.size(), n * pageSize)))));
        assertThat(what, page.pages(), is(pages));
        read++;
        String next = cursors.next(page.start());
        if (next == null) {
          assertThat(what + " is the last", (long) n, is(pages));
          break;
        }
        page = reader.read(keys, next, cursors);
      }
    }
    return read;
  }
}
