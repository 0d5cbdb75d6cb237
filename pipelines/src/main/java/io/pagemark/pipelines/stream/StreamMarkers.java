package io.pagemark.pipelines.stream;

import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Checks {@code stream --markers} before the stream starts: the markers exist and number the stream's GSI. */
final class StreamMarkers {
  private StreamMarkers() {}

  /**
   * The markers a {@code --markers} value names, reached through the stream's DynamoDB connection.
   *
   * @throws IllegalArgumentException when the value is malformed, or the markers are missing or of another GSI
   */
  static MarkerSpec spec(String value, DynamoConnection dynamo, KeySchema schema) {
    MarkerSpec parsed = MarkerSpec.parse(value);
    MarkerSpec spec = new MarkerSpec(parsed.table(), parsed.markerIndex(),
        parsed.statsKey() == null ? parsed.statsTable() : null, parsed.statsKey(), dynamo);
    MarkerConfig config;
    try (DynamoDbClient c = dynamo.client()) {
      config = MarkerTables.read(c, spec);
    }
    if (config == null) {
      throw new IllegalArgumentException("no page markers at " + spec + "; run pagemark markers build --table="
          + schema.table() + " --gsi=" + schema.indexName() + " --markerIndex=" + spec.markerIndex() + " first");
    }
    if (!config.schema().equals(schema)) {
      throw new IllegalArgumentException("the page markers at " + spec + " number the pages of "
          + config.schema().table() + "/" + config.schema().indexName() + ", not of " + schema.table() + "/"
          + schema.indexName());
    }
    return spec;
  }
}
