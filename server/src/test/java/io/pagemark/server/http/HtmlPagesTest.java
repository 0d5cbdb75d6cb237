package io.pagemark.server.http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class HtmlPagesTest {
  @Test
  void markupAndControlCharactersAreEscaped() {
    assertThat(HtmlPages.escape("<script>alert('x')</script>&\"q\""),
        equalTo("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;q&quot;"));
    assertThat(HtmlPages.escape("nul\u0000byte\u007f\r"), equalTo("nul\\u0000byte\\u007F\\u000D"));
    assertThat(HtmlPages.escape("new\nline \u00e9"), equalTo("new\nline \u00e9"));
  }

  @Test
  void aPageShowsItsPositionAWindowOfLinksAndACanonicalLink() {
    String hostile = "<img src=x onerror=alert(1)>";
    List<Map<String, AttributeValue>> items = List.of(
        Map.of("PK2", AttributeValue.fromS(hostile), "SK", AttributeValue.fromS("</td><b>"),
            "n", AttributeValue.fromN("12")));
    ItemPage<Map<String, AttributeValue>> p = new ItemPage<>(KeyValue.ofString(hostile), 5, 20, Order.ASC, 200, 10,
        "b1", items, false, false, null, 1, 0.5);
    HtmlPages.View view = new HtmlPages.View("/groups/" + UrlText.segment(p.group()), 20, true, Order.ASC);
    String html = HtmlPages.page(p, view, List.of("PK2", "SK"));
    assertThat(html, not(containsString("<img")));
    assertThat(html, not(containsString("</td><b>")));
    assertThat(html, containsString("page 5 of 10"));
    assertThat(html, containsString("<link rel=\"canonical\" href=\"/groups/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29"
        + "%3E?page=5\">"));
    for (int n : new int[] {1, 3, 4, 6, 7, 10}) {
      assertThat(html, containsString("href=\"?page=" + n + "\""));
    }
    assertThat(html, not(containsString("href=\"?page=2\"")));
    assertThat(html, containsString("<span class=\"current\" aria-current=\"page\">5</span>"));
    assertThat(html, containsString("<a class=\"next\" rel=\"next\" href=\"?page=6\">Next</a>"));
    assertThat(html, containsString("<th>PK2</th><th>SK</th><th>n</th>"));
  }

  @Test
  void theLastPageHasNoNextLinkAndDescendingPagesKeepTheirOrder() {
    ItemPage<Map<String, AttributeValue>> p = new ItemPage<>(KeyValue.ofString("g"), 3, 7, Order.DESC, 20, 3,
        "b1", List.of(), false, false, null, 1, 0.5);
    String html = HtmlPages.page(p, new HtmlPages.View("/groups/g", 7, false, Order.DESC), List.of("PK2", "SK"));
    assertThat(html, containsString("<span class=\"next disabled\">Next</span>"));
    assertThat(html, containsString("href=\"?page=1&amp;size=7&amp;order=desc\""));
  }
}
