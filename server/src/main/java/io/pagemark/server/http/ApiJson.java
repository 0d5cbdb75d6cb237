package io.pagemark.server.http;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.pagemark.lookup.ItemPage;
import io.pagemark.lookup.UnionPage;
import io.pagemark.lookup.UnionPageStart;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The JSON API's response bodies, written with Jackson's streaming generator: a page is the object
 * {@code pagemark page} prints (items in DynamoDB JSON, attributes by name, binary values in base64) plus its links;
 * errors are {@code {"error": "...", "status": N}}. The shapes are the ones {@code openapi.json} describes.
 */
final class ApiJson {
  private static final JsonFactory JSON = new JsonFactory();

  private ApiJson() {}

  /** Writes one JSON value; the writer never fails on a byte array. */
  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private static byte[] write(Body body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Relative links from a page to the group's first, previous, next and last pages (absent where there is none). */
  record Links(String first, String prev, String next, String last) {}

  static byte[] page(ItemPage<Map<String, AttributeValue>> p, Links links) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("group", p.group().text());
      g.writeNumberField("page", p.page());
      g.writeNumberField("pageSize", p.pageSize());
      g.writeStringField("order", p.order().label());
      g.writeNumberField("count", p.count());
      g.writeNumberField("pages", p.pages());
      g.writeStringField("build", p.buildId());
      g.writeBooleanField("fresh", p.fresh());
      g.writeBooleanField("stale", p.stale());
      g.writeArrayFieldStart("items");
      for (Map<String, AttributeValue> item : p.items()) {
        item(g, item);
      }
      g.writeEndArray();
      g.writeObjectFieldStart("links");
      link(g, "first", links.first());
      link(g, "prev", links.prev());
      link(g, "next", links.next());
      link(g, "last", links.last());
      g.writeEndObject();
      g.writeEndObject();
    });
  }

  /**
   * A union's page: {@link #page}'s shape with {@code groups} for {@code group}, each group's share, and the next
   * page's signed cursor ({@code next}, with its link {@code links.nextCursor}) unless the page is the last.
   */
  static byte[] unionPage(UnionPage<Map<String, AttributeValue>> p, Links links, String cursor, String cursorLink) {
    UnionPageStart s = p.start();
    return write(g -> {
      g.writeStartObject();
      g.writeArrayFieldStart("groups");
      for (var k : s.groups()) {
        g.writeString(k.text());
      }
      g.writeEndArray();
      g.writeNumberField("page", s.page());
      g.writeNumberField("pageSize", s.pageSize());
      g.writeStringField("order", s.order().label());
      g.writeNumberField("count", s.count());
      g.writeNumberField("pages", s.pages());
      g.writeStringField("build", s.buildId());
      g.writeBooleanField("stale", p.stale());
      g.writeArrayFieldStart("takes");
      for (UnionPageStart.GroupStart one : s.starts()) {
        g.writeNumber(one.take());
      }
      g.writeEndArray();
      g.writeArrayFieldStart("items");
      for (Map<String, AttributeValue> item : p.items()) {
        item(g, item);
      }
      g.writeEndArray();
      link(g, "next", cursor);
      g.writeObjectFieldStart("links");
      link(g, "first", links.first());
      link(g, "prev", links.prev());
      link(g, "next", links.next());
      link(g, "nextCursor", cursorLink);
      link(g, "last", links.last());
      g.writeEndObject();
      g.writeEndObject();
    });
  }

  private static void link(JsonGenerator g, String name, String href) throws IOException {
    if (href != null) {
      g.writeStringField(name, href);
    }
  }

  static byte[] group(PageService.GroupSize s, int pageSize) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("group", s.group().text());
      g.writeNumberField("count", s.count());
      g.writeNumberField("pageSize", pageSize);
      g.writeNumberField("pages", (s.count() + pageSize - 1) / pageSize);
      g.writeStringField("build", s.build());
      g.writeEndObject();
    });
  }

  static byte[] error(int status, String message) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("error", message);
      g.writeNumberField("status", status);
      g.writeEndObject();
    });
  }

  static byte[] health(String build) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("status", "ok");
      g.writeStringField("build", build);
      g.writeEndObject();
    });
  }

  /** An item in DynamoDB JSON, attributes sorted by name so that equal items print equally. */
  static void item(JsonGenerator g, Map<String, AttributeValue> item) throws IOException {
    g.writeStartObject();
    for (Map.Entry<String, AttributeValue> e : new TreeMap<>(item).entrySet()) {
      g.writeFieldName(e.getKey());
      value(g, e.getValue());
    }
    g.writeEndObject();
  }

  /** One attribute value in DynamoDB JSON as text, for the web page's cells. */
  static String value(AttributeValue v) {
    return new String(write(g -> value(g, v)), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static void value(JsonGenerator g, AttributeValue v) throws IOException {
    AttributeValue.Type type = v.type();
    if (type == null || type == AttributeValue.Type.UNKNOWN_TO_SDK_VERSION) {
      throw new IllegalArgumentException("attribute value of a type this SDK does not know: " + v);
    }
    g.writeStartObject();
    // The SDK calls the NULL type NUL; DynamoDB's JSON calls it NULL.
    g.writeFieldName(type == AttributeValue.Type.NUL ? "NULL" : type.name());
    switch (type) {
      case S:
        g.writeString(v.s());
        break;
      case N:
        g.writeString(v.n());
        break;
      case B:
        g.writeString(base64(v.b()));
        break;
      case BOOL:
        g.writeBoolean(v.bool());
        break;
      case NUL:
        g.writeBoolean(true);
        break;
      case SS:
        strings(g, v.ss());
        break;
      case NS:
        strings(g, v.ns());
        break;
      case BS:
        strings(g, v.bs().stream().map(ApiJson::base64).toList());
        break;
      case M:
        item(g, v.m());
        break;
      case L:
        g.writeStartArray();
        for (AttributeValue e : v.l()) {
          value(g, e);
        }
        g.writeEndArray();
        break;
      default:
        throw new AssertionError(type);
    }
    g.writeEndObject();
  }

  private static void strings(JsonGenerator g, List<String> values) throws IOException {
    g.writeStartArray();
    for (String s : values) {
      g.writeString(s);
    }
    g.writeEndArray();
  }

  private static String base64(SdkBytes bytes) {
    return Base64.getEncoder().encodeToString(bytes.asByteArray());
  }
}
