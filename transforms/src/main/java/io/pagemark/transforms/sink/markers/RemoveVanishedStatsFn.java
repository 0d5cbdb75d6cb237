package io.pagemark.transforms.sink.markers;

import io.pagemark.commit.markers.GroupStats;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.format.markers.StatsItems;
import io.pagemark.transforms.Backfill;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Once every group of a build is written (its one input is their sum), deletes the STATS items of groups that have
 * no item left, so that readers say there is no such group; passes the sum on.
 */
final class RemoveVanishedStatsFn extends DoFn<MarkerCounts, MarkerCounts> {
  private final MarkerSpec spec;
  private final MarkerConfig config;
  private final Counter removed = Metrics.counter(Backfill.METRICS, "statsRemoved");

  RemoveVanishedStatsFn(MarkerSpec spec, MarkerConfig config) {
    this.spec = spec;
    this.config = config;
  }

  @ProcessElement
  public void process(ProcessContext c) {
    try (DynamoDbClient client = spec.connection().client()) {
      removed.inc(new GroupStats(client, config, StatsItems.of(client, spec)).removeVanished());
    }
    c.output(c.element());
  }
}
