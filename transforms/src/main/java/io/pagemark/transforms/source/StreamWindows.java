package io.pagemark.transforms.source;

import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * The two clocks of a change stream, shared by every store it feeds. Writes fire on processing time
 * ({@link #flush}), so a quiet stream's last changes land within a flush interval; the resume position moves with the
 * watermark over one-second windows of Kinesis arrival times ({@link #arrivalSeconds}): once such a window is
 * complete, every record that arrived in it has been written, and a restarted stream may begin at its end.
 */
public final class StreamWindows {
  /** Dead letters are grouped into this many shards per flush (one file or push each). */
  public static final int DEAD_LETTER_SHARDS = 4;
  static final Duration POSITION_WINDOW = Duration.standardSeconds(1);

  private StreamWindows() {}

  /** Global window, fired on processing time; panes keep their earliest timestamp, which holds the watermark. */
  public static <T> Window<T> flush(Duration interval) {
    return Window.<T>into(new GlobalWindows())
        .triggering(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane().plusDelayOf(interval)))
        .withTimestampCombiner(TimestampCombiner.EARLIEST)
        .withAllowedLateness(Duration.ZERO)
        .withOnTimeBehavior(Window.OnTimeBehavior.FIRE_IF_NON_EMPTY)
        .discardingFiredPanes();
  }

  /** Markers of written records in one-second windows of arrival time, each fired once the watermark passes it. */
  public static PCollection<Long> arrivalSeconds(PCollection<Long> markers, String what) {
    return markers.apply(
        "Arrival windows of " + what,
        Window.<Long>into(FixedWindows.of(POSITION_WINDOW))
            .triggering(DefaultTrigger.of())
            .withAllowedLateness(Duration.ZERO)
            .discardingFiredPanes());
  }
}
