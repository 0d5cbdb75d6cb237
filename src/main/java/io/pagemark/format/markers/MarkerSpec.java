package io.pagemark.format.markers;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.SpecParameters;
import java.io.Serializable;
import java.util.Map;

/**
 * Where page markers live: {@code dynamodb://TABLE/MARKER_INDEX[?endpoint=URL][&region=R][&stats=STATS_TABLE]}, the
 * table whose items carry the markers, its sparse marker GSI, and the table that holds the configuration and each
 * group's STATS item (default {@code TABLE.MARKER_INDEX}). Immutable and serializable.
 *
 * @param table the table whose items carry the markers
 * @param markerIndex the sparse GSI on (group key, marker)
 * @param statsTable the table of the STATS items
 * @param connection the DynamoDB endpoint and region
 */
public record MarkerSpec(String table, String markerIndex, String statsTable, DynamoConnection connection)
    implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final String SCHEME = "dynamodb://";
  public static final String USAGE = "dynamodb://TABLE/MARKER_INDEX[?endpoint=URL][&region=R][&stats=STATS_TABLE]";
  private static final String NAME = "[A-Za-z0-9_.-]{3,255}";

  public MarkerSpec {
    checkName(table, "table");
    checkName(markerIndex, "marker index");
    statsTable = statsTable == null ? defaultStatsTable(table, markerIndex) : statsTable;
    checkName(statsTable, "stats table");
    java.util.Objects.requireNonNull(connection, "connection");
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
    for (Map.Entry<String, String> p : SpecParameters.of(spec).entrySet()) {
      switch (p.getKey()) {
        case "endpoint" -> endpoint = p.getValue();
        case "region" -> region = p.getValue();
        case "stats" -> stats = p.getValue();
        default -> throw new IllegalArgumentException(
            "unknown parameter \"" + p.getKey() + "\" in \"" + spec + "\"; expected " + USAGE);
      }
    }
    return new MarkerSpec(parts[0], parts[1], stats, new DynamoConnection(endpoint, region));
  }

  private static void checkName(String name, String what) {
    if (name == null || !name.matches(NAME)) {
      throw new IllegalArgumentException(
          "\"" + name + "\" is not a DynamoDB " + what + " name (3 to 255 of A-Z, a-z, 0-9, '_', '-', '.')");
    }
  }

  @Override
  public String toString() {
    return SCHEME + table + "/" + markerIndex;
  }
}
