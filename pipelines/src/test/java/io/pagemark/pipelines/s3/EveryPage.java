package io.pagemark.pipelines.s3;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageReader;
import io.pagemark.pipelines.PageWalk;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The check every S3 test makes: each page of each group, both orders, read through the library's {@link PageReader}
 * on the index, equals DynamoDB's walk.
 */
final class EveryPage {
  private EveryPage() {}

  /** Asserts it for the groups and counts given; returns the number of pages compared. */
  static long assertEqualsDynamoDb(Index index, DynamoDbClient client, String table, String gsi,
      Map<String, Integer> counts, int pageSize) throws Exception {
    PageReader<Map<String, AttributeValue>> reader = PageReader.of(client, table, gsi, index);
    long compared = 0;
    for (Map.Entry<String, Integer> g : counts.entrySet()) {
      try (GroupPages pages = index.group(g.getKey())) {
        assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
        for (boolean forward : new boolean[] {true, false}) {
          List<List<Map<String, AttributeValue>>> walk = PageWalk.pages(client, table, gsi, g.getKey(), pageSize,
              forward);
          assertThat(pages.pages(pageSize), is((long) walk.size()));
          for (int n = 1; n <= walk.size(); n++) {
            List<Map<String, AttributeValue>> page =
                reader.read(g.getKey(), n, pageSize, forward ? Order.ASC : Order.DESC).items();
            assertThat("group " + g.getKey() + " page " + n + (forward ? " asc" : " desc"),
                PageWalk.keys(page), equalTo(PageWalk.keys(walk.get(n - 1))));
            compared++;
          }
        }
      }
    }
    return compared;
  }
}
