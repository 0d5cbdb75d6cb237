package io.pagemark.transforms.source;

import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.joda.time.Duration;

/**
 * The clock of a change stream's writes, shared by every store it feeds: writes fire on processing time
 * ({@link #flush}), so a quiet stream's last changes land within a flush interval. Resume positions do not follow
 * the watermark (see {@link TrackShardPositionsFn}).
 */
public final class StreamWindows {
  /** Dead letters are grouped into this many shards per flush (one file or push each). */
  public static final int DEAD_LETTER_SHARDS = 4;

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
}
