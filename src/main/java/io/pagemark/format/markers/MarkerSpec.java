package io.pagemark.format.markers;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.SpecParameters;
import java.io.Serializable;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Where page markers live:
 * {@code dynamodb://TABLE/MARKER_INDEX[?endpoint=URL][&region=R][&stats=STATS_TABLE | &statsKey=PREFIX]}, the table
 * whose items carry the markers, its sparse marker GSI, and where the configuration and each group's STATS item are
 * kept: a table of their own (default {@code TABLE.MARKER_INDEX}), or with {@code statsKey} the marked table itself,
 * under partition keys that begin with {@code PREFIX#} ({@link StatsItems}). Immutable and serializable.
 *
 * @param table the table whose items carry the markers
 * @param markerIndex the sparse GSI on (group key, marker)
 * @param statsTable the table of the STATS items ({@code table} itself with a {@code statsKey})
 * @param statsKey the prefix of the STATS items' partition keys in {@code table}, or null for a stats table
 * @param connection the DynamoDB endpoint and region
 */
public record MarkerSpec(String table, String markerIndex, String statsTable, String statsKey,
    DynamoConnection connection) implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String SCHEME = "dynamodb://";
  public static final String USAGE =
      "dynamodb://TABLE/MARKER_INDEX[?endpoint=URL][&region=R][&stats=STATS_TABLE | &statsKey=PREFIX]";
  private static final String NAME = "[A-Za-z0-9_.-]{3,255}";
  /** The longest {@code statsKey} prefix: a partition key holds at most 2048 bytes, and the group key follows it. */
  public static final int MAX_STATS_KEY = 200;

  public MarkerSpec {
    checkName(table, "table");
    checkName(markerIndex, "marker index");
    if (statsKey != null) {
      if (statsTable != null && !statsTable.equals(table)) {
        throw new IllegalArgumentException("the STATS items go either into a stats table (" + statsTable
            + ") or into the table itself under a key prefix (" + statsKey + "), not both; give one of the two");
      }
      if (statsKey.isEmpty() || statsKey.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_STATS_KEY) {
        throw new IllegalArgumentException("the STATS key prefix must be 1 to " + MAX_STATS_KEY + " bytes, not \""
            + statsKey + "\"");
      }
      statsTable = table;
    }
    statsTable = statsTable == null ? defaultStatsTable(table, markerIndex) : statsTable;
    checkName(statsTable, "stats table");
    java.util.Objects.requireNonNull(connection, "connection");
  }

  /** Markers whose STATS items are in a stats table ({@code null}: the default one). */
  public MarkerSpec(String table, String markerIndex, String statsTable, DynamoConnection connection) {
    this(table, markerIndex, statsTable, null, connection);
  }

  /** The stats table a marker index uses unless told otherwise: {@code TABLE.MARKER_INDEX}. */
  public static String defaultStatsTable(String table, String markerIndex) {
    String name = table + "." + markerIndex;
    return name.length() <= 255 ? name : name.substring(0, 255);
  }

  /** Whether a spec names page markers. */
  public static boolean accepts(String spec) {
    return spec.startsWith(SCHEME);
  }

  /**
   * Parses a spec (query values percent-encoded).
   *
   * @throws IllegalArgumentException saying what is wrong, with the expected form
   */
  public static MarkerSpec parse(String spec) {
    if (!accepts(spec)) {
      throw new IllegalArgumentException("\"" + spec + "\" does not name page markers; expected " + USAGE);
    }
    int q = spec.indexOf('?');
    String path = spec.substring(SCHEME.length(), q < 0 ? spec.length() : q);
    String[] parts = path.split("/", -1);
    if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
      throw new IllegalArgumentException("\"" + spec + "\" names no table and marker index; expected " + USAGE);
    }
    String endpoint = null;
    String region = null;
    String stats = null;
    String statsKey = null;
    for (Map.Entry<String, String> p : SpecParameters.of(spec).entrySet()) {
      switch (p.getKey()) {
        case "endpoint" -> endpoint = p.getValue();
        case "region" -> region = p.getValue();
        case "stats" -> stats = p.getValue();
        case "statsKey" -> statsKey = p.getValue();
        default -> throw new IllegalArgumentException(
            "unknown parameter \"" + p.getKey() + "\" in \"" + spec + "\"; expected " + USAGE);
      }
    }
    if (stats != null && statsKey != null) {
      throw new IllegalArgumentException("\"" + spec + "\" names both stats= and statsKey=: the STATS items are in a"
          + " stats table or in the table itself, not both; expected " + USAGE);
    }
    return new MarkerSpec(parts[0], parts[1], stats, statsKey, new DynamoConnection(endpoint, region));
  }

  /**
   * {@code spec} with {@code endpoint=URL} and {@code region=R} added where it is a page markers spec that names
   * none of its own and they are given (how the CLI's {@code --dynamoEndpoint} and {@code --awsRegion} reach the
   * markers); any other spec is returned unchanged.
   */
  public static String withConnection(String spec, String endpoint, String region) {
    if (!accepts(spec)) {
      return spec;
    }
    Map<String, String> given = SpecParameters.of(spec);
    StringBuilder b = new StringBuilder(spec);
    if (endpoint != null && !endpoint.isBlank() && !given.containsKey("endpoint")) {
      b.append(b.indexOf("?") < 0 ? '?' : '&').append("endpoint=")
          .append(URLEncoder.encode(endpoint, StandardCharsets.UTF_8));
    }
    if (region != null && !region.isBlank() && !given.containsKey("region")) {
      b.append(b.indexOf("?") < 0 ? '?' : '&').append("region=")
          .append(URLEncoder.encode(region, StandardCharsets.UTF_8));
    }
    return b.toString();
  }

  private static void checkName(String name, String what) {
    if (name == null || !name.matches(NAME)) {
      throw new IllegalArgumentException(
          "\"" + name + "\" is not a DynamoDB " + what + " name (3 to 255 of A-Z, a-z, 0-9, '_', '-', '.')");
    }
  }

  /**
   * The spec a reader opens these markers with: {@link #toString()}, with {@code ?statsKey=PREFIX} when the STATS
   * items are in the table (the endpoint and region left out, as in {@link #toString()}).
   */
  public String withStatsKey() {
    return statsKey == null ? toString()
        : toString() + "?statsKey=" + URLEncoder.encode(statsKey, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return SCHEME + table + "/" + markerIndex;
  }
}
