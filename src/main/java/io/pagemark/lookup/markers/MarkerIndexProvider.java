package io.pagemark.lookup.markers;

import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.IndexProvider;
import java.io.IOException;

/**
 * Opens page markers kept inside DynamoDB by {@code pagemark markers build}:
 * {@code dynamodb://TABLE/MARKER_INDEX[?endpoint=URL][&region=R][&stats=STATS_TABLE | &statsKey=PREFIX]}. Such an
 * index answers the pages of the one size the markers were built for. Found by {@link java.util.ServiceLoader}; applications call
 * {@link io.pagemark.lookup.Indexes#open(String)}. Stateless and thread-safe.
 */
public final class MarkerIndexProvider implements IndexProvider {
  @Override
  public boolean accepts(String spec) {
    return MarkerSpec.accepts(spec);
  }

  @Override
  public Index open(String spec) throws IOException {
    return MarkerIndex.open(MarkerSpec.parse(spec), null);
  }

  @Override
  public Index open(String spec, String buildId) throws IOException {
    return MarkerIndex.open(MarkerSpec.parse(spec), buildId);
  }

  @Override
  public String usage() {
    return MarkerSpec.USAGE;
  }
}
