package com.example.comments;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.TestIndex;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageOutOfRangeException;
import io.pagemark.lookup.SimulatedGroup;
import io.pagemark.lookup.SimulatedQueries;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The example of {@code docs/library.md} is {@link Comments}, verbatim, so that it cannot rot: it compiles outside
 * the library's packages (public surface only), and it pages a file index over a simulated GSI exactly as DynamoDB's
 * own cursor walk does.
 */
class CommentsExampleTest {
  static final Path SOURCE = Path.of("test/java/com/example/comments/Comments.java");
  static final Path DOC = Path.of("../docs/library.md");

  @Test
  void theDocumentShowsThisExampleVerbatim() throws Exception {
    String source = Files.readString(SOURCE);
    String example = source.substring(source.indexOf("\n\n") + 2); // everything after the package line
    Matcher java = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(Files.readString(DOC));
    assertThat("docs/library.md has a ```java block", java.find(), is(true));
    assertThat(java.group(1), equalTo(example));
  }

  @Test
  void everyPageIsTheCursorWalksPage(@TempDir Path dir) throws Exception {
    KeyValue product = KeyValue.ofString("SKU-1");
    SimulatedGroup sim = SimulatedGroup.random(new Random(5), product, 200);
    new TestIndex(dir, SimulatedGroup.GROUP_ATTRIBUTE, "S", SimulatedGroup.ATTRIBUTES)
        .group(product, sim.records(run -> true)).publish("b1", 1_700_000_000_000L);
    SimulatedQueries dynamo = new SimulatedQueries("comments", "byProduct", sim);
    List<List<SimulatedGroup.Item>> walk = sim.walk(20, Order.DESC);
    assertThat("a group of several pages, for this test to mean anything", walk.size(), greaterThanOrEqualTo(3));
    try (Comments comments = new Comments(dynamo, dir.toString())) {
      for (int n = 1; n <= walk.size(); n++) {
        List<Map<String, AttributeValue>> expected = new ArrayList<>();
        walk.get(n - 1).forEach(it -> expected.add(dynamo.item(it)));
        assertThat("page " + n, comments.page("SKU-1", n), equalTo(expected));
      }
      int past = walk.size() + 1;
      Assertions.assertThrows(PageOutOfRangeException.class, () -> comments.page("SKU-1", past));
    }
    assertThat(dynamo.queries(), is(walk.size()));
  }
}
