package io.pagemark.transforms.sink.file;

import io.pagemark.wal.Wal;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.beam.sdk.metrics.Gauge;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;

/**
 * Runs once per completed window of record arrival times: every record that arrived before the window's end has been
 * decoded and its changes written (the window fires only when the watermark passed its end, and the watermark waits
 * for pending writes), so the WAL's resume position moves to the window's end.
 */
final class AdvancePositionFn extends DoFn<Long, Long> {
  private final String root;
  private final Gauge position = Metrics.gauge(StreamToWal.METRICS, "positionMillis");
  private transient long written = Long.MIN_VALUE;

  AdvancePositionFn(String root) {
    this.root = root;
  }

  @ProcessElement
  public void process(@Element Long records, BoundedWindow window, OutputReceiver<Long> out) throws IOException {
    long end = ((IntervalWindow) window).end().getMillis();
    if (end > written) {
      if (new Wal(Path.of(root)).advancePosition(java.time.Instant.ofEpochMilli(end))) {
        position.set(end);
      }
      written = end;
    }
    out.output(records);
  }
}
