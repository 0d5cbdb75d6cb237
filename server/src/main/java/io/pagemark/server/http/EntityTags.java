package io.pagemark.server.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Entity tags and cache lifetimes. A page placed by the index is the same page for as long as its build is
 * (DynamoDB may still change an item's other attributes; a stale page says so), so its tag is the build, order, size
 * and page number, and a conditional request is answered 304 from the index alone, without a Query. A fresh page
 * (read straight from DynamoDB) is tagged by a hash of its body instead.
 */
final class EntityTags {
  /** Pages and groups pinned to a build ({@code &build=ID}) change only if an item does: a CDN may keep them. */
  static final String PINNED_CACHE = "public, max-age=300";

  private EntityTags() {}

  /** The tag of a page placed by the index; {@code kind} tells the JSON page ("p") from the web page ("h"). */
  static String page(String kind, String build, PageService.PageRequest r) {
    return "\"" + kind + "." + token(build) + "." + r.order().label() + "." + r.size() + "." + r.page() + "\"";
  }

  /** The tag of a group's count and pages in a build. */
  static String group(String build, int size) {
    return "\"g." + token(build) + "." + size + "\"";
  }

  /** A weak tag from a body's SHA-256, for fresh pages. */
  static String weak(byte[] body) {
    return "W/\"f." + HexFormat.of().formatHex(sha256(body), 0, 12) + "\"";
  }

  /**
   * Whether an {@code If-None-Match} header matches a tag: {@code *}, or any listed tag equal to it under the weak
   * comparison (RFC 9110 13.1.2: a {@code W/} prefix is ignored).
   */
  static boolean matches(String ifNoneMatch, String etag) {
    String want = opaque(etag);
    for (String t : ifNoneMatch.split(",")) {
      String tag = t.trim();
      if (tag.equals("*") || opaque(tag).equals(want)) {
        return true;
      }
    }
    return false;
  }

  private static String opaque(String tag) {
    return tag.startsWith("W/") ? tag.substring(2) : tag;
  }

  /** A build id as a tag may hold it: as it is when it is plain, else its hash. */
  private static String token(String build) {
    if (build.matches("[0-9A-Za-z._-]{1,64}")) {
      return build;
    }
    return HexFormat.of().formatHex(sha256(build.getBytes(StandardCharsets.UTF_8)), 0, 12);
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
