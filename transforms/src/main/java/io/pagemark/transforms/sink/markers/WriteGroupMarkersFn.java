package io.pagemark.transforms.sink.markers;

import io.pagemark.commit.markers.GroupMarkers;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.format.markers.StatsItems;
import io.pagemark.key.KeyValue;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.order.OrderedPart;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Writes the markers and the STATS item of one group from its ordered parts. */
final class WriteGroupMarkersFn extends DoFn<KV<String, Iterable<OrderedPart>>, MarkerCounts> {
  private final MarkerSpec spec;
  private final MarkerConfig config;
  private final Counter stamped = Metrics.counter(Backfill.METRICS, "markersWritten");
  private final Counter removed = Metrics.counter(Backfill.METRICS, "markersRemoved");
  private final Counter groups = Metrics.counter(Backfill.METRICS, "groupsWritten");
  private final Counter rereads = Metrics.counter(Backfill.METRICS, "groupsReadAgain");
  private final Counter conflicts = Metrics.counter(Backfill.METRICS, "markerConflicts");
  private transient DynamoDbClient client;
  private transient GroupMarkers writer;

  WriteGroupMarkersFn(MarkerSpec spec, MarkerConfig config) {
    this.spec = spec;
    this.config = config;
  }

  @Setup
  public void setup() {
    client = spec.connection().client();
    writer = new GroupMarkers(client, config, StatsItems.of(client, spec));
  }

  @ProcessElement
  public void process(ProcessContext c) {
    List<OrderedPart> parts = new ArrayList<>();
    c.element().getValue().forEach(parts::add);
    parts.sort(Comparator.comparingInt(OrderedPart::part));
    KeyValue group = parts.get(0).group();
    List<IndexRecord> records = new ArrayList<>();
    for (OrderedPart p : parts) {
      records.addAll(p.records());
    }
    GroupMarkers.Outcome o = writer.write(group, records);
    stamped.inc(o.stamped());
    removed.inc(o.removed());
    groups.inc();
    rereads.inc(o.rereads());
    conflicts.inc(o.conflicts());
    c.output(new MarkerCounts(1, o.entries(), o.stamped(), o.removed(), o.rereads(), o.conflicts()));
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
