package io.pagemark.server.http;

import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The web page, rendered on the server with no script: a group's page of items as a table, "page N of P", a
 * pagination bar of plain links (first, previous, a window around N, next, last) and a self-referencing canonical
 * link; the home page's list of groups; error pages. Everything that comes from the table or the request is escaped
 * ({@link #escape}).
 */
final class HtmlPages {
  /** Pages linked on each side of the current one in the pagination bar. */
  static final int WINDOW = 2;
  /** A cell shows at most this many characters of a value. */
  static final int MAX_CELL = 300;

  private HtmlPages() {}

  /** How the page was asked for: size and order appear in links only when they differ from the defaults. */
  record View(String groupPath, int size, boolean defaultSize, Order order) {
    String query(long page) {
      StringBuilder q = new StringBuilder("?page=").append(page);
      if (!defaultSize) {
        q.append("&size=").append(size);
      }
      if (order == Order.DESC) {
        q.append("&order=desc");
      }
      return q.toString();
    }
  }

  static String page(ItemPage<Map<String, AttributeValue>> p, View view, List<String> keyAttributes) {
    String group = p.group().text();
    StringBuilder b = new StringBuilder(8192);
    String title = "Group " + group + ": page " + p.page() + " of " + p.pages();
    head(b, title, view.groupPath() + view.query(p.page()));
    b.append("<p class=\"nav\"><a href=\"/\">All groups</a></p>\n");
    b.append("<h1>Group <span class=\"group\">").append(escape(group)).append("</span></h1>\n");
    b.append("<p id=\"position\">page ").append(p.page()).append(" of ").append(p.pages()).append("</p>\n");
    b.append("<p class=\"about\">").append(p.count()).append(" items, ").append(p.pageSize())
        .append(" a page, ").append(p.order() == Order.ASC ? "ascending" : "descending").append("; build ")
        .append(escape(p.buildId())).append(p.fresh() ? "; read fresh from DynamoDB" : "")
        .append(p.stale() ? "; the group changed since this build" : "").append("</p>\n");
    pagination(b, p.page(), p.pages(), view);
    items(b, p.items(), keyAttributes);
    pagination(b, p.page(), p.pages(), view);
    return b.append("</body>\n</html>\n").toString();
  }

  private static void pagination(StringBuilder b, long page, long pages, View view) {
    b.append("<nav class=\"pagination\" aria-label=\"pages\">");
    link(b, "first", "First", 1, page > 1, view);
    link(b, "prev", "Previous", page - 1, page > 1, view);
    long from = Math.max(1, page - WINDOW);
    long to = Math.min(pages, page + WINDOW);
    if (from > 1) {
      b.append(" <span class=\"gap\">&hellip;</span>");
    }
    for (long n = from; n <= to; n++) {
      if (n == page) {
        b.append(" <span class=\"current\" aria-current=\"page\">").append(n).append("</span>");
      } else {
        b.append(" <a class=\"page\" href=\"").append(escape(view.query(n))).append("\">").append(n).append("</a>");
      }
    }
    if (to < pages) {
      b.append(" <span class=\"gap\">&hellip;</span>");
    }
    link(b, "next", "Next", page + 1, page < pages, view);
    link(b, "last", "Last", pages, page < pages, view);
    b.append("</nav>\n");
  }

  private static void link(StringBuilder b, String rel, String text, long page, boolean enabled, View view) {
    if (enabled) {
      b.append(" <a class=\"").append(rel).append("\"")
          .append(rel.equals("prev") || rel.equals("next") ? " rel=\"" + rel + "\"" : "")
          .append(" href=\"").append(escape(view.query(page))).append("\">").append(text).append("</a>");
    } else {
      b.append(" <span class=\"").append(rel).append(" disabled\">").append(text).append("</span>");
    }
  }

  static void items(StringBuilder b, List<Map<String, AttributeValue>> items, List<String> keys) {
    Set<String> columns = new LinkedHashSet<>(keys);
    Set<String> others = new TreeSet<>();
    items.forEach(i -> others.addAll(i.keySet()));
    others.removeAll(columns);
    columns.addAll(others);
    b.append("<table class=\"items\">\n<thead><tr>");
    for (String c : columns) {
      b.append("<th>").append(escape(c)).append("</th>");
    }
    b.append("</tr></thead>\n<tbody>\n");
    for (Map<String, AttributeValue> item : items) {
      b.append("<tr>");
      for (String c : columns) {
        AttributeValue v = item.get(c);
        b.append("<td>").append(v == null ? "" : escape(cell(v))).append("</td>");
      }
      b.append("</tr>\n");
    }
    b.append("</tbody>\n</table>\n");
  }

  /** A value as a reader sees it: strings and numbers as they are, anything else in DynamoDB JSON; long ones cut. */
  static String cell(AttributeValue v) {
    String s;
    if (v.s() != null) {
      s = v.s();
    } else if (v.n() != null) {
      s = v.n();
    } else {
      s = ApiJson.value(v);
    }
    if (s.length() > MAX_CELL) {
      int end = Character.isHighSurrogate(s.charAt(MAX_CELL - 1)) ? MAX_CELL - 1 : MAX_CELL;
      s = s.substring(0, end) + "\u2026 (" + s.length() + " characters)";
    }
    return s;
  }

  static String home(PageService.Listing listing, int pageSize) {
    StringBuilder b = new StringBuilder(8192);
    head(b, "Groups", "/");
    b.append("<h1>Groups</h1>\n<p class=\"about\">").append(listing.total()).append(" groups by ")
        .append(escape(listing.groupAttribute())).append(" in build ").append(escape(listing.build()));
    if (listing.groups().size() < listing.total()) {
      b.append("; the first ").append(listing.groups().size()).append(" in key order");
    }
    b.append("</p>\n<table class=\"groups\">\n<thead><tr><th>group</th><th>items</th><th>pages of ")
        .append(pageSize).append("</th></tr></thead>\n<tbody>\n");
    for (PageService.GroupSize g : listing.groups()) {
      b.append("<tr><td><a href=\"/groups/").append(escape(UrlText.segment(g.group()))).append("\">")
          .append(escape(g.group().text())).append("</a></td><td>").append(g.count()).append("</td><td>")
          .append((g.count() + pageSize - 1) / pageSize).append("</td></tr>\n");
    }
    b.append("</tbody>\n</table>\n");
    return b.append("</body>\n</html>\n").toString();
  }

  static String error(int status, String message) {
    StringBuilder b = new StringBuilder(1024);
    head(b, status + " " + reason(status), null);
    b.append("<h1>").append(status).append(' ').append(reason(status)).append("</h1>\n<p class=\"error\">")
        .append(escape(message)).append("</p>\n<p><a href=\"/\">All groups</a></p>\n");
    return b.append("</body>\n</html>\n").toString();
  }

  static String reason(int status) {
    switch (status) {
      case 400:
        return "Bad Request";
      case 404:
        return "Not Found";
      case 405:
        return "Method Not Allowed";
      case 503:
        return "Service Unavailable";
      default:
        return "Error";
    }
  }

  static void head(StringBuilder b, String title, String canonical) {
    b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        .append(escape(title)).append("</title>\n");
    if (canonical != null) {
      b.append("<link rel=\"canonical\" href=\"").append(escape(canonical)).append("\">\n");
    }
    b.append("<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}")
        .append("td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top;")
        .append("white-space:pre-wrap;word-break:break-all}nav{margin:1em 0}nav a,nav span{margin-right:.4em}")
        .append(".current{font-weight:bold}.disabled{color:#999}</style>\n</head>\n<body>\n");
  }

  /**
   * Text safe in HTML content and in quoted attribute values: markup characters as entities, and control
   * characters (which HTML forbids or browsers drop) shown as {@code \\uXXXX} so that distinct keys look distinct.
   */
  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&':
          b.append("&amp;");
          break;
        case '<':
          b.append("&lt;");
          break;
        case '>':
          b.append("&gt;");
          break;
        case '"':
          b.append("&quot;");
          break;
        case '\'':
          b.append("&#39;");
          break;
        default:
          if ((c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0) || c == '\r') {
            b.append(String.format("\\u%04X", (int) c));
          } else {
            b.append(c);
          }
      }
    }
    return b.toString();
  }
}
