package io.pagemark.format.s3;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.SpecParameters;
import java.io.Serializable;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Where an index lives in S3: {@code s3://BUCKET[/PREFIX][?endpoint=URL][&region=R]}. The endpoint (an S3-compatible
 * store such as s3proxy or MinIO) turns on path-style addressing; without it the AWS endpoint of the region is used.
 * Credentials come from the AWS default chain, as for DynamoDB (dummy ones for a loopback endpoint when the chain has
 * none). Immutable and serializable; {@link #toString()} is the spec without its query.
 *
 * @param bucket the bucket
 * @param prefix the index's key prefix inside it, without leading or trailing '/' (empty for the bucket's root)
 * @param endpoint the S3 endpoint URL, or null for AWS
 * @param region the region (default {@value DynamoConnection#DEFAULT_REGION})
 */
public record S3Location(String bucket, String prefix, String endpoint, String region) implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String SCHEME = "s3://";
  static final String EXAMPLE = "s3://BUCKET/PREFIX[?endpoint=URL]";

  public S3Location {
    if (bucket == null || !bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException("\"" + bucket + "\" is not an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-')");
    }
    prefix = prefix == null ? "" : stripSlashes(prefix);
    endpoint = DynamoConnection.checkEndpoint(endpoint, "S3", "http://127.0.0.1:9000");
    region = DynamoConnection.regionOrDefault(region);
  }

  /** Whether a spec names an S3 index. */
  public static boolean accepts(String spec) {
    return spec.startsWith(SCHEME);
  }

  /**
   * Parses {@code s3://BUCKET[/PREFIX][?endpoint=URL][&region=R]} (query values percent-encoded).
   *
   * @throws IllegalArgumentException saying what is wrong, with an example
   */
  public static S3Location parse(String spec) {
    if (!accepts(spec)) {
      throw new IllegalArgumentException("\"" + spec + "\" is not an S3 index; expected " + EXAMPLE);
    }
    int q = spec.indexOf('?');
    String path = spec.substring(SCHEME.length(), q < 0 ? spec.length() : q);
    int slash = path.indexOf('/');
    String bucket = slash < 0 ? path : path.substring(0, slash);
    String prefix = slash < 0 ? "" : path.substring(slash + 1);
    String endpoint = null;
    String region = null;
    for (Map.Entry<String, String> p : SpecParameters.of(spec).entrySet()) {
      switch (p.getKey()) {
        case "endpoint" -> endpoint = p.getValue();
        case "region" -> region = p.getValue();
        default -> throw new IllegalArgumentException("\"" + spec + "\": an S3 index takes ?endpoint=URL and"
            + " &region=R, not \"" + p.getKey() + "\"");
      }
    }
    if (prefix.contains("//") || prefix.startsWith("/")) {
      throw new IllegalArgumentException("\"" + spec + "\": the prefix must not contain empty path segments");
    }
    try {
      return new S3Location(bucket, prefix, endpoint, region);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("\"" + spec + "\": " + e.getMessage() + "; expected " + EXAMPLE, e);
    }
  }

  /**
   * {@code spec} with {@code ?endpoint=URL} added when it is an S3 spec without one and {@code endpoint} is given
   * (how the CLI's {@code --s3Endpoint} reaches the store); any other spec is returned unchanged.
   */
  public static String withEndpoint(String spec, String endpoint) {
    if (endpoint == null || endpoint.isBlank() || !accepts(spec) || parse(spec).endpoint() != null) {
      return spec;
    }
    return spec + (spec.indexOf('?') < 0 ? "?" : "&") + "endpoint="
        + URLEncoder.encode(endpoint, StandardCharsets.UTF_8);
  }

  /** The object key of a path relative to the index's prefix. */
  public String key(String relative) {
    return prefix.isEmpty() ? relative : prefix + "/" + relative;
  }

  /** The {@code s3://} URI of a path relative to the index's prefix, for messages. */
  public String uri(String relative) {
    return SCHEME + bucket + "/" + key(relative);
  }

  /** The spec with its query: {@code s3://BUCKET/PREFIX?endpoint=...}, for handing on to another process. */
  public String spec() {
    Map<String, String> q = new LinkedHashMap<>();
    if (endpoint != null) {
      q.put("endpoint", endpoint);
    }
    if (!region.equals(DynamoConnection.DEFAULT_REGION)) {
      q.put("region", region);
    }
    StringBuilder b = new StringBuilder(toString());
    char sep = '?';
    for (Map.Entry<String, String> e : q.entrySet()) {
      b.append(sep).append(e.getKey()).append('=').append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
      sep = '&';
    }
    return b.toString();
  }

  /** A new client for this location; the caller closes it. */
  public S3Client client() {
    S3ClientBuilder b = DynamoConnection.configure(S3Client.builder(), endpoint, region);
    if (endpoint != null) {
      b.forcePathStyle(true); // S3-compatible stores rarely answer virtual-hosted names (bucket.host)
    }
    return b.build();
  }

  /** Where to reach S3, for messages. */
  public String where() {
    return endpoint == null ? "S3 in " + region : "S3 at " + endpoint;
  }

  private static String stripSlashes(String p) {
    int from = 0;
    int to = p.length();
    while (from < to && p.charAt(from) == '/') {
      from++;
    }
    while (to > from && p.charAt(to - 1) == '/') {
      to--;
    }
    return p.substring(from, to);
  }

  @Override
  public String toString() {
    return SCHEME + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
  }
}
