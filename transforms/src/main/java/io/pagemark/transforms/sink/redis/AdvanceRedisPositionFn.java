package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.sink.file.StreamToWal;
import org.apache.beam.sdk.metrics.Gauge;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;

/**
 * Once per completed window of arrival times (every record before its end was decoded and its changes applied), moves
 * the resume position in {@code P stream} to the window's end, never back; the WAL's position moves the same way.
 */
final class AdvanceRedisPositionFn extends DoFn<Long, Long> {
  private final RedisStreamTarget target;
  private final Gauge position = Metrics.gauge(StreamToWal.METRICS, "redisPositionMillis");
  private transient RedisSession redis;
  private transient long written = Long.MIN_VALUE;

  AdvanceRedisPositionFn(RedisStreamTarget target) {
    this.target = target;
  }

  @Setup
  public void setup() {
    redis = target.session("pagemark-stream-position");
  }

  @ProcessElement
  public void process(@Element Long records, BoundedWindow window, OutputReceiver<Long> out) {
    long end = ((IntervalWindow) window).end().getMillis();
    if (end > written) {
      if (target.advancePosition(redis, end)) {
        position.set(end);
      }
      written = end;
    }
    out.output(records);
  }

  @Teardown
  public void teardown() {
    if (redis != null) {
      redis.close();
    }
  }
}
