package io.pagemark.transforms.sink.markers;

import io.pagemark.change.IndexChange;
import io.pagemark.commit.markers.MarkerChanges;
import io.pagemark.commit.markers.MarkerTables;
import io.pagemark.format.markers.MarkerConfig;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.format.markers.StatsItems;
import io.pagemark.transforms.sink.file.StreamToWal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/** Applies one flush of one group's changes to its markers and STATS item; emits the number of changes applied. */
final class ApplyMarkerChangesFn extends DoFn<KV<String, Iterable<IndexChange>>, Long> {
  private final MarkerSpec spec;
  private final Counter newest = Metrics.counter(StreamToWal.METRICS, "markerNewestInserts");
  private final Counter rewrites = Metrics.counter(StreamToWal.METRICS, "markerRewrites");
  private final Counter transactions = Metrics.counter(StreamToWal.METRICS, "markerTransactions");
  private final Counter retries = Metrics.counter(StreamToWal.METRICS, "markerRetries");
  private transient DynamoDbClient client;
  private transient MarkerChanges changes;

  ApplyMarkerChangesFn(MarkerSpec spec) {
    this.spec = spec;
  }

  @Setup
  public void setup() {
    client = spec.connection().client();
    MarkerConfig config = MarkerTables.read(client, spec);
    if (config == null) {
      throw new IllegalStateException("no page markers at " + spec + "; run pagemark markers build first");
    }
    changes = new MarkerChanges(client, config, StatsItems.of(client, spec));
  }

  @ProcessElement
  public void process(ProcessContext c) {
    List<IndexChange> group = new ArrayList<>();
    c.element().getValue().forEach(group::add);
    group.sort(Comparator.comparing(IndexChange::version));
    MarkerChanges.Outcome o = changes.apply(group.get(0).group(), group);
    (o.newest() ? newest : rewrites).inc();
    transactions.inc(o.transactions());
    retries.inc(o.retries());
    c.output((long) group.size());
  }

  @Teardown
  public void teardown() {
    if (client != null) {
      client.close();
    }
  }
}
