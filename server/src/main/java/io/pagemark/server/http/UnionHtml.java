package io.pagemark.server.http;

import static io.pagemark.server.http.HtmlPages.escape;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.UnionPage;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The web page of a union of groups ({@code /union?group=A&group=B}): a form of checkboxes, one per group (the
 * groups of the union checked, then the home page's groups), the merged page of items, and links to the first,
 * previous, next and last pages that carry the same groups. Rendered on the server with no script; everything from
 * the table or the request is escaped.
 */
final class UnionHtml {
  private UnionHtml() {}

  /** The query string of a union's page: its groups in order, then page, size and order. */
  static String query(List<KeyValue> groups, long page, int size, Order order) {
    StringBuilder q = new StringBuilder("?");
    for (KeyValue g : groups) {
      q.append("group=").append(UrlText.queryValue(UrlText.text(g))).append('&');
    }
    q.append("page=").append(page).append("&size=").append(size);
    if (order == Order.DESC) {
      q.append("&order=desc");
    }
    return q.toString();
  }

  static String page(UnionPage<Map<String, AttributeValue>> p, PageService.Listing listing,
      List<String> keyAttributes) {
    var s = p.start();
    StringBuilder b = new StringBuilder(8192);
    String title = "Union of " + s.groups().size() + " group" + (s.groups().size() == 1 ? "" : "s") + ": page "
        + s.page() + " of " + s.pages();
    HtmlPages.head(b, title, "/union" + query(s.groups(), s.page(), s.pageSize(), s.order()));
    b.append("<p class=\"nav\"><a href=\"/\">All groups</a></p>\n<h1>").append(escape(title)).append("</h1>\n");
    filters(b, s.groups(), listing, s.pageSize(), s.order());
    b.append("<p id=\"position\">page ").append(s.page()).append(" of ").append(s.pages()).append("</p>\n");
    b.append("<p class=\"about\">").append(s.count()).append(" items, ").append(s.pageSize()).append(" a page, ")
        .append(s.order() == Order.ASC ? "ascending" : "descending").append("; build ").append(escape(s.buildId()))
        .append(p.stale() ? "; a group changed since this build" : "").append("</p>\n");
    nav(b, p);
    HtmlPages.items(b, p.items(), keyAttributes);
    nav(b, p);
    return b.append("</body>\n</html>\n").toString();
  }

  /** Checkboxes: the union's groups first (checked), then the listed groups not in it. */
  private static void filters(StringBuilder b, List<KeyValue> selected, PageService.Listing listing, int size,
      Order order) {
    Set<KeyValue> shown = new LinkedHashSet<>(selected);
    listing.groups().forEach(g -> shown.add(g.group()));
    b.append("<form class=\"filters\" method=\"get\" action=\"/union\"><fieldset><legend>Groups</legend>\n");
    for (KeyValue g : shown) {
      b.append("<label><input type=\"checkbox\" name=\"group\" value=\"").append(escape(UrlText.text(g)))
          .append('"').append(selected.contains(g) ? " checked" : "").append("> ").append(escape(g.text()))
          .append("</label>\n");
    }
    b.append("</fieldset><input type=\"hidden\" name=\"size\" value=\"").append(size).append("\">")
        .append("<input type=\"hidden\" name=\"order\" value=\"").append(order.label()).append("\">")
        .append("<button type=\"submit\">Show</button></form>\n");
  }

  private static void nav(StringBuilder b, UnionPage<?> p) {
    var s = p.start();
    b.append("<nav class=\"pagination\" aria-label=\"pages\">");
    link(b, "first", "First", 1, s.page() > 1, p);
    link(b, "prev", "Previous", s.page() - 1, s.page() > 1, p);
    b.append(" <span class=\"current\" aria-current=\"page\">").append(s.page()).append("</span>");
    link(b, "next", "Next", s.page() + 1, s.page() < s.pages(), p);
    link(b, "last", "Last", s.pages(), s.page() < s.pages(), p);
    b.append("</nav>\n");
  }

  private static void link(StringBuilder b, String rel, String text, long page, boolean enabled, UnionPage<?> p) {
    var s = p.start();
    if (enabled) {
      b.append(" <a class=\"").append(rel).append("\" href=\"/union")
          .append(escape(query(s.groups(), page, s.pageSize(), s.order()))).append("\">").append(text).append("</a>");
    } else {
      b.append(" <span class=\"").append(rel).append(" disabled\">").append(text).append("</span>");
    }
  }
}
