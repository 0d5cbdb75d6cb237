package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.source.Segments;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;

/**
 * The synthetic entries of a spec, read the way a backfill reads a table: segments handed to the workers one at a
 * time ({@link Segments}), then a DoFn that emits each segment's entries (as {@code ScanSegmentFn} emits a Scan segment's items). A Beam
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
    return begin
        .apply("List segments", Segments.of(SEGMENTS)) // one at a time to whichever worker is free, as a backfill's
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
