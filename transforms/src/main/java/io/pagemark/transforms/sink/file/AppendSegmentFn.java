package io.pagemark.transforms.sink.file;

import io.pagemark.change.IndexChange;
import io.pagemark.transforms.source.LagBuckets;
import io.pagemark.transforms.source.RecordRef;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import io.pagemark.dynamo.KeySchema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Distribution;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Appends one flush of one group's changes to the WAL as a new segment (written, forced and renamed into place),
 * records for each change the lag from its ApproximateCreationDateTime to now, when it became durable, and then names
 * the record of each change (for the shard positions).
 */
final class AppendSegmentFn extends DoFn<KV<String, Iterable<KV<RecordRef, IndexChange>>>, RecordRef> {
  private final KeySchema schema;
  private final String root;
  private final Counter segments = Metrics.counter(StreamToWal.METRICS, "segmentsWritten");
  private final Counter durable = Metrics.counter(StreamToWal.METRICS, "changesDurable");
  private final Distribution lag = Metrics.distribution(StreamToWal.METRICS, "lagMillis");
  private transient Wal wal;

  AppendSegmentFn(KeySchema schema, String root) {
    this.schema = schema;
    this.root = root;
  }

  @Setup
  public void setup() {
    wal = new Wal(Path.of(root));
  }

  @ProcessElement
  public void process(@Element KV<String, Iterable<KV<RecordRef, IndexChange>>> group,
      OutputReceiver<RecordRef> out) throws IOException {
    List<IndexChange> changes = new ArrayList<>();
    List<RecordRef> records = new ArrayList<>();
    for (KV<RecordRef, IndexChange> c : group.getValue()) {
      records.add(c.getKey());
      changes.add(c.getValue());
    }
    if (changes.isEmpty()) {
      return;
    }
    IndexChange first = changes.get(0);
    new WalSegment(schema.groupAttribute(), first.group(), schema.storedAttributes(), changes)
        .write(wal.groupDir(first.group()), Wal.newSegmentName());
    segments.inc();
    durable.inc(changes.size());
    long now = System.currentTimeMillis();
    for (IndexChange c : changes) {
      long ms = Math.max(0, now - c.version().creationMicros() / 1000);
      lag.update(ms);
      Metrics.counter(StreamToWal.METRICS, LagBuckets.counterName(ms)).inc();
    }
    records.forEach(out::output);
  }
}
