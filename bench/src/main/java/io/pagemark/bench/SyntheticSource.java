package io.pagemark.bench;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.source.Segments;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;

/**
 * The synthetic entries of a spec, read the way a backfill reads a table: segments handed to the workers one at a
 * time ({@link Segments}), then a DoFn that emits each segment's entries in pages of {@value #PAGE_ENTRIES}, one list
 * per page (as {@code ScanSegmentFn} emits each Scan page's entries; for {@code BuildIndex.fromBatches()}). A Beam
 * source ({@code GenerateSequence}) would add what a backfill does not pay: Flink's source wrapper updates metrics
 * after every record.
 */
final class SyntheticSource extends PTransform<PBegin, PCollection<List<IndexEntry>>> {
  static final int SEGMENTS = 16;
  /**
   * Entries per page: no more than a Scan page holds of a table whose items take up to 1 KB each (a page stops at
   * 1 MB of items), so that the bench does not claim more than a backfill gets.
   */
  static final int PAGE_ENTRIES = 1_000;

  private final SyntheticEntries spec;

  SyntheticSource(SyntheticEntries spec) {
    this.spec = spec;
  }

  @Override
  public PCollection<List<IndexEntry>> expand(PBegin begin) {
    return begin
        .apply("List segments", Segments.of(SEGMENTS)) // one at a time to whichever worker is free, as a backfill's
        .apply("Synthetic entries", ParDo.of(new SegmentFn(spec)))
        .setCoder(ListCoder.of(IndexEntryCoder.of()));
  }

  /**
   * Emits the entries of one segment, every {@value #SEGMENTS}-th entry number starting at the segment's, in lists of
   * {@value #PAGE_ENTRIES} (the last one shorter).
   */
  static final class SegmentFn extends DoFn<Integer, List<IndexEntry>> {
    private final SyntheticEntries spec;

    SegmentFn(SyntheticEntries spec) {
      this.spec = spec;
    }

    @ProcessElement
    public void process(@Element Integer segment, OutputReceiver<List<IndexEntry>> out) {
      List<IndexEntry> page = new ArrayList<>(PAGE_ENTRIES);
      byte[] scratch = new byte[SyntheticEntries.ENTRY_SCRATCH];
      for (long i = segment; i < spec.entries(); i += SEGMENTS) {
        page.add(spec.entry(i, scratch));
        if (page.size() == PAGE_ENTRIES) {
          out.output(page);
          page = new ArrayList<>(PAGE_ENTRIES);
        }
      }
      if (!page.isEmpty()) {
        out.output(page);
      }
    }
  }
}
