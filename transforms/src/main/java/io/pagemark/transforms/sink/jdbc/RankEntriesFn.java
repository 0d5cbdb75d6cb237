package io.pagemark.transforms.sink.jdbc;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.jdbc.JdbcRecords;
import io.pagemark.transforms.Backfill;
import io.pagemark.transforms.order.OrderedPart;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.PCollectionView;

/**
 * Turns a part into entry rows: entry i of part p is at rank {@code start(p) + i}. A group of one part starts at 0;
 * the starts of bigger groups come as a side input (few groups are bigger than a part).
 */
final class RankEntriesFn extends DoFn<OrderedPart, RankedEntry> {
  private final PCollectionView<Map<String, List<Long>>> partStarts;
  private final Counter rows = Metrics.counter(Backfill.METRICS, "jdbcEntries");

  RankEntriesFn(PCollectionView<Map<String, List<Long>>> partStarts) {
    this.partStarts = partStarts;
  }

  /** The side input's key of a group: its canonical bytes in base64. */
  static String key(byte[] groupKey) {
    return Base64.getEncoder().encodeToString(groupKey);
  }

  @ProcessElement
  public void process(ProcessContext c) {
    OrderedPart part = c.element();
    byte[] groupKey = JdbcRecords.groupKey(part.group());
    long start = 0;
    if (part.parts() > 1) {
      List<Long> starts = c.sideInput(partStarts).get(key(groupKey));
      if (starts == null || starts.size() != part.parts()) {
        throw new IllegalStateException("no start for part " + (part.part() + 1) + " of " + part.parts()
            + " of group " + part.group());
      }
      start = starts.get(part.part());
    }
    long rank = start;
    for (IndexRecord r : part.records()) {
      c.output(new RankedEntry(groupKey, rank++, r));
    }
    rows.inc(part.records().size());
  }
}
