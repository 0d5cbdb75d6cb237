package io.pagemark.server.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.UnionPage;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Routes every request of {@code pagemark serve}: the JSON API under {@code /v1} (a union of groups under
 * {@code /v1/union}), the web page under {@code /groups} (a union's under {@code /union}), the home page, {@code /openapi.json}, {@code /healthz} and {@code /metrics}. GET and HEAD only.
 * Whatever a request holds, it gets an answer with a status and a body that say what happened; an unexpected
 * exception is logged and answered 500, and never ends the server.
 */
final class ServeHandler implements HttpHandler {
  private static final Logger LOG = LoggerFactory.getLogger(ServeHandler.class);
  static final String JSON = "application/json";
  static final String HTML = "text/html; charset=utf-8";
  static final String METRICS = "text/plain; version=0.0.4; charset=utf-8";

  private final PageService service;
  private final ServerMetrics metrics;
  private final byte[] openApi;
  private final String currentMaxAge;

  ServeHandler(PageService service, ServerMetrics metrics) throws IOException {
    this.service = service;
    this.metrics = metrics;
    try (InputStream in = ServeHandler.class.getResourceAsStream("openapi.json")) {
      if (in == null) {
        throw new IOException("openapi.json is missing from the server's classpath");
      }
      this.openApi = new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .replace("{{maxPageSize}}", Integer.toString(service.config().maxPageSize()))
          .replace("{{pageSize}}", Integer.toString(service.config().pageSize()))
          .getBytes(StandardCharsets.UTF_8);
    }
    long refresh = service.config().refresh().toSeconds();
    this.currentMaxAge = "public, max-age=" + Math.max(1, refresh);
  }

  /** A response: status, content type, body and the headers that matter here. */
  record Response(int status, String type, byte[] body, String etag, String cacheControl, String retryAfter) {
    static Response of(int status, String type, byte[] body, String etag, String cacheControl) {
      return new Response(status, type, body, etag, cacheControl, null);
    }
  }

  @Override
  public void handle(HttpExchange x) {
    long started = System.nanoTime();
    RequestTiming.start();
    String route = "unknown";
    int status = 500;
    try {
      String[] path = x.getRequestURI().getRawPath().split("/", -1);
      route = route(path);
      Response r;
      String method = x.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        r = failure(route, new HttpFailure(405, "method " + Messages.shorten(method) + " is not allowed here; use"
            + " GET or HEAD", null));
        x.getResponseHeaders().set("Allow", "GET, HEAD");
      } else {
        r = answer(route, path, x);
      }
      status = r.status();
      x.getResponseHeaders().set("Server-Timing", RequestTiming.header(started));
      try {
        send(x, r);
      } catch (IOException clientGone) {
        // the client closed the connection before the answer was written (a timeout, a load test ending): not ours
        LOG.debug("{} {}: the client went away: {}", x.getRequestMethod(), x.getRequestURI(), clientGone.toString());
      }
    } catch (Throwable t) {
      LOG.error("answering {} {} failed", x.getRequestMethod(), x.getRequestURI(), t);
      status = 500;
      try {
        send(x, Response.of(500, JSON, ApiJson.error(500, "internal error: " + t), null, "no-store"));
      } catch (Throwable ignored) {
        // the response had already started; closing the exchange below ends the connection
      }
      if (t instanceof Error && !(t instanceof StackOverflowError)) {
        throw (Error) t;
      }
    } finally {
      x.close();
      metrics.record(route, status, System.nanoTime() - started);
    }
  }

  /** The route a path names, for metrics: a fixed label, never anything from the request. */
  static String route(String[] p) {
    if (p.length == 2 && p[1].isEmpty()) {
      return "home";
    }
    if (p.length == 2) {
      switch (p[1]) {
        case "openapi.json":
          return "openapi";
        case "healthz":
          return "healthz";
        case "metrics":
          return "metrics";
        case "union":
          return "web_union";
        default:
          return "unknown";
      }
    }
    if (p.length == 3 && p[1].equals("groups")) {
      return "web_page";
    }
    if (p.length == 4 && p[1].equals("v1") && p[2].equals("groups")) {
      return "group";
    }
    if (p.length == 5 && p[1].equals("v1") && p[2].equals("union") && p[3].equals("pages")) {
      return p[4].equals("next") ? "union_next" : "union_page";
    }
    if (p.length == 6 && p[1].equals("v1") && p[2].equals("groups") && p[4].equals("pages")) {
      return "page";
    }
    return "unknown";
  }

  private Response answer(String route, String[] path, HttpExchange x) {
    try {
      List<String> groups = new ArrayList<>();
      boolean union = route.equals("union_page") || route.equals("union_next") || route.equals("web_union");
      Map<String, String> query = UrlText.query(x.getRequestURI().getRawQuery(), union ? "group" : null, groups);
      String ifNoneMatch = x.getRequestHeaders().getFirst("If-None-Match");
      switch (route) {
        case "home":
          return Response.of(200, HTML, bytes(HtmlPages.home(service.groups(), service.config().pageSize())),
              null, currentMaxAge);
        case "web_page":
          return webPage(UrlText.decodeSegment(path[2]), query, ifNoneMatch);
        case "group":
          return group(UrlText.decodeSegment(path[3]), query, ifNoneMatch);
        case "page":
          return page(UrlText.decodeSegment(path[3]), path[5], query, ifNoneMatch);
        case "union_page":
          return unionPage(groups, path[4], query);
        case "union_next":
          return unionNext(groups, query);
        case "web_union":
          return webUnion(groups, query);
        case "openapi":
          return Response.of(200, JSON, openApi, null, "public, max-age=300");
        case "healthz":
          return Response.of(200, JSON, ApiJson.health(service.currentBuild()), null, "no-store");
        case "metrics":
          return Response.of(200, METRICS, bytes(metrics.text()), null, "no-store");
        default:
          throw HttpFailure.notFound("no such resource; see /openapi.json for the API and / for the groups");
      }
    } catch (HttpFailure f) {
      return failure(route, f);
    }
  }

  private Response failure(String route, HttpFailure f) {
    boolean html = route.equals("web_page") || route.equals("home") || route.equals("web_union");
    byte[] body = html ? bytes(HtmlPages.error(f.status(), f.getMessage())) : ApiJson.error(f.status(), f.getMessage());
    return new Response(f.status(), html ? HTML : JSON, body, null, "no-store", f.retryAfter());
  }

  private Response page(String group, String pageText, Map<String, String> query, String ifNoneMatch)
      throws HttpFailure {
    PageService.PageRequest r = new PageService.PageRequest(group, pageNumber(pageText), size(query), order(query),
        build(query));
    boolean fresh = r.page() <= service.config().freshPages();
    if (ifNoneMatch != null && !fresh) {
      PageService.GroupSize placed = service.placement(r);
      String etag = EntityTags.page("p", placed.build(), r);
      if (EntityTags.matches(ifNoneMatch, etag)) {
        return Response.of(304, JSON, null, etag, cacheControl(r, false));
      }
    }
    ItemPage<Map<String, AttributeValue>> p = service.page(r);
    String build = "&build=" + UrlText.queryValue(p.buildId());
    String params = "?size=" + p.pageSize() + "&order=" + p.order().label() + build;
    ApiJson.Links links = new ApiJson.Links("1" + params, p.page() > 1 ? (p.page() - 1) + params : null,
        p.page() < p.pages() ? (p.page() + 1) + params : null, p.pages() + params);
    byte[] body = ApiJson.page(p, links);
    String etag = p.fresh() ? EntityTags.weak(body) : EntityTags.page("p", p.buildId(), r);
    if (ifNoneMatch != null && EntityTags.matches(ifNoneMatch, etag)) {
      return Response.of(304, JSON, null, etag, cacheControl(r, p.fresh()));
    }
    return Response.of(200, JSON, body, etag, cacheControl(r, p.fresh()));
  }

  /** A union's page: no ETag (a page of several groups changes with any of them), cached as one group's page. */
  private Response unionPage(List<String> groups, String pageText, Map<String, String> query) throws HttpFailure {
    PageService.UnionRequest r = new PageService.UnionRequest(groups, pageNumber(pageText), size(query), order(query),
        build(query));
    UnionPage<Map<String, AttributeValue>> p = service.unionPage(r);
    return unionAnswer(p, r.build());
  }

  /**
   * {@code /v1/union/pages/next?group=A&group=B&cursor=C}: the page a union's cursor names. The cursor holds the page,
   * its size and its order, so {@code size} and {@code order} are refused beside it; a cursor the server refuses
   * (forged, altered, of other groups or another build) is a 400.
   */
  private Response unionNext(List<String> groups, Map<String, String> query) throws HttpFailure {
    String cursor = query.get("cursor");
    if (cursor == null || cursor.isEmpty()) {
      throw HttpFailure.badRequest("cursor is missing: pass the \"next\" cursor of a union's page with the same"
          + " group parameters (or ask for a numbered page: /v1/union/pages/{n})");
    }
    for (String named : List.of("size", "order", "page")) {
      if (query.containsKey(named)) {
        throw HttpFailure.badRequest("a cursor names the page, its size and its order; leave " + named
            + " out beside it");
      }
    }
    String build = build(query);
    return unionAnswer(service.unionPage(groups, cursor, build), build);
  }

  /** A union page's JSON, its numbered links and the cursor of the next page (relative to /v1/union/pages/). */
  private Response unionAnswer(UnionPage<Map<String, AttributeValue>> p, String pinned) {
    var s = p.start();
    String groups = UnionHtml.query(s.groups(), 0, s.pageSize(), s.order()).replace("&page=0", "");
    String build = "&build=" + UrlText.queryValue(s.buildId());
    String params = groups + build;
    String cursor = service.config().cursors().next(s);
    String byCursor = cursor == null ? null
        : "next" + groups.substring(0, groups.indexOf("size=")) + "cursor=" + UrlText.queryValue(cursor) + build;
    ApiJson.Links links = new ApiJson.Links("1" + params, s.page() > 1 ? (s.page() - 1) + params : null,
        s.page() < s.pages() ? (s.page() + 1) + params : null, s.pages() + params);
    return Response.of(200, JSON, ApiJson.unionPage(p, links, cursor, byCursor), null,
        pinned == null ? currentMaxAge : EntityTags.PINNED_CACHE);
  }

  private Response webUnion(List<String> groups, Map<String, String> query) throws HttpFailure {
    PageService.UnionRequest r = new PageService.UnionRequest(groups,
        pageNumber(query.getOrDefault("page", "1")), size(query), order(query), null);
    UnionPage<Map<String, AttributeValue>> p = service.unionPage(r);
    byte[] body = bytes(UnionHtml.page(p, service.groups(), service.keyAttributes(null)));
    return Response.of(200, HTML, body, null, currentMaxAge);
  }

  private Response group(String group, Map<String, String> query, String ifNoneMatch) throws HttpFailure {
    int size = size(query);
    String build = build(query);
    PageService.GroupSize g = service.size(group, build);
    String etag = EntityTags.group(g.build(), size);
    String cache = build == null ? currentMaxAge : EntityTags.PINNED_CACHE;
    if (ifNoneMatch != null && EntityTags.matches(ifNoneMatch, etag)) {
      return Response.of(304, JSON, null, etag, cache);
    }
    return Response.of(200, JSON, ApiJson.group(g, size), etag, cache);
  }

  private Response webPage(String group, Map<String, String> query, String ifNoneMatch) throws HttpFailure {
    String pageText = query.getOrDefault("page", "1");
    PageService.PageRequest r = new PageService.PageRequest(group, pageNumber(pageText), size(query), order(query),
        null);
    boolean fresh = r.page() <= service.config().freshPages();
    if (ifNoneMatch != null && !fresh) {
      PageService.GroupSize placed = service.placement(r);
      String etag = EntityTags.page("h", placed.build(), r);
      if (EntityTags.matches(ifNoneMatch, etag)) {
        return Response.of(304, HTML, null, etag, cacheControl(r, false));
      }
    }
    ItemPage<Map<String, AttributeValue>> p = service.page(r);
    HtmlPages.View view = new HtmlPages.View("/groups/" + UrlText.segment(p.group()), r.size(),
        r.size() == service.config().pageSize(), r.order());
    byte[] body = bytes(HtmlPages.page(p, view, service.keyAttributes(null)));
    String etag = p.fresh() ? EntityTags.weak(body) : EntityTags.page("h", p.buildId(), r);
    if (ifNoneMatch != null && EntityTags.matches(ifNoneMatch, etag)) {
      return Response.of(304, HTML, null, etag, cacheControl(r, p.fresh()));
    }
    return Response.of(200, HTML, body, etag, cacheControl(r, p.fresh()));
  }

  private String cacheControl(PageService.PageRequest r, boolean fresh) {
    if (fresh) {
      return "no-cache";
    }
    return r.build() == null ? currentMaxAge : EntityTags.PINNED_CACHE;
  }

  private static long pageNumber(String text) throws HttpFailure {
    long page;
    try {
      page = text.chars().allMatch(c -> c >= '0' && c <= '9') ? Long.parseLong(text) : -1;
    } catch (NumberFormatException tooLarge) {
      page = -1;
    }
    if (page < 1) {
      throw HttpFailure.badRequest("page must be a whole number from 1, not \"" + Messages.shorten(text) + "\"");
    }
    return page;
  }

  private int size(Map<String, String> query) throws HttpFailure {
    String text = query.get("size");
    int max = service.config().maxPageSize();
    if (text == null) {
      return service.config().pageSize();
    }
    long size;
    try {
      size = text.chars().allMatch(c -> c >= '0' && c <= '9') ? Long.parseLong(text) : -1;
    } catch (NumberFormatException tooLarge) {
      size = -1;
    }
    if (size < 1 || size > max) {
      throw HttpFailure.badRequest("size must be a whole number from 1 to " + max + ", not \""
          + Messages.shorten(text) + "\"");
    }
    return (int) size;
  }

  private static Order order(Map<String, String> query) throws HttpFailure {
    String text = query.getOrDefault("order", "asc");
    switch (text) {
      case "asc":
        return Order.ASC;
      case "desc":
        return Order.DESC;
      default:
        throw HttpFailure.badRequest("order must be asc or desc, not \"" + Messages.shorten(text) + "\"");
    }
  }

  private static String build(Map<String, String> query) throws HttpFailure {
    String build = query.get("build");
    if (build != null && build.isEmpty()) {
      throw HttpFailure.badRequest("build must name a build (as a page's \"build\" field does), or be left out");
    }
    return build;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void send(HttpExchange x, Response r) throws IOException {
    var h = x.getResponseHeaders();
    h.set("Content-Type", r.type());
    h.set("X-Content-Type-Options", "nosniff");
    if (r.etag() != null) {
      h.set("ETag", r.etag());
    }
    if (r.cacheControl() != null) {
      h.set("Cache-Control", r.cacheControl());
    }
    if (r.retryAfter() != null) {
      h.set("Retry-After", r.retryAfter());
    }
    byte[] body = r.body();
    boolean noBody = body == null || x.getRequestMethod().equals("HEAD") || r.status() == 304;
    x.sendResponseHeaders(r.status(), noBody ? -1 : body.length);
    if (!noBody) {
      try (OutputStream out = x.getResponseBody()) {
        out.write(body);
      }
    }
  }
}
