package io.pagemark.pipelines.s3;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageQuery;
import io.pagemark.lookup.PageStart;
import io.pagemark.pipelines.PageWalk;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The check every S3 test makes: each page of each group, both orders, through the index equals DynamoDB's walk. */
final class EveryPage {
  private EveryPage() {}

  /** Asserts it for the groups and counts given; returns the number of pages compared. */
  static long assertEqualsDynamoDb(Index index, DynamoDbClient client, String table, String gsi,
      Map<String, Integer> counts, int pageSize) throws Exception {
    PageQuery query = new PageQuery(client, table, gsi, "PK2");
    long compared = 0;
    for (Map.Entry<String, Integer> g : counts.entrySet()) {
      try (GroupPages pages = index.group(g.getKey())) {
        assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
        for (boolean forward : new boolean[] {true, false}) {
          List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(client, table, gsi, g.getKey(), pageSize,
              forward);
          assertThat(pages.pages(pageSize), is((long) walk.size()));
          for (int n = 1; n <= walk.size(); n++) {
            PageStart start = pages.pageStart(n, pageSize, forward ? Order.ASC : Order.DESC);
            assertThat("group " + g.getKey() + " page " + n + (forward ? " asc" : " desc"),
                PageWalk.keys(query.fetch(start).items()), equalTo(PageWalk.keys(walk.get(n - 1))));
            compared++;
          }
        }
      }
    }
    return compared;
  }
}
