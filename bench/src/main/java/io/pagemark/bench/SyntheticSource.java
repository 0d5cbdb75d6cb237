package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.transforms.order.IndexEntryCoder;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Reshuffle;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;

/**
 * The synthetic entries of a spec, read the way a backfill reads a table: a list of segments spread over the workers,
 * then a DoFn that emits each segment's entries (as {@code ScanSegmentFn} emits a Scan segment's items). A Beam
 * source ({@code GenerateSequence}) would add what a backfill does not pay: Flink's source wrapper updates metrics
 * after every record.
 */
final class SyntheticSource extends PTransform<PBegin, PCollection<IndexEntry>> {
  static final int SEGMENTS = 16;

  private final SyntheticEntries spec;

  SyntheticSource(SyntheticEntries spec) {
    this.spec = spec;
  }

  @Override
  public PCollection<IndexEntry> expand(PBegin begin) {
    List<Integer> segments = new ArrayList<>();
    for (int s = 0; s < SEGMENTS; s++) {
      segments.add(s);
    }
    return begin
        .apply("List segments", Create.of(segments))
        .apply("Spread segments", Reshuffle.viaRandomKey())
        .apply("Synthetic entries", ParDo.of(new SegmentFn(spec)))
        .setCoder(IndexEntryCoder.of());
  }

  /** Emits the entries of one segment: every {@value #SEGMENTS}-th entry number, starting at the segment's. */
  static final class SegmentFn extends DoFn<Integer, IndexEntry> {
    private final SyntheticEntries spec;

    SegmentFn(SyntheticEntries spec) {
      this.spec = spec;
    }

    @ProcessElement
    public void process(@Element Integer segment, OutputReceiver<IndexEntry> out) {
      for (long i = segment; i < spec.entries(); i += SEGMENTS) {
        out.output(spec.entry(i));
      }
    }
  }
}
