package io.pagemark.transforms.source;

import io.pagemark.transforms.sink.file.StreamToWal;
import io.pagemark.wal.ShardPosition;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Duration;

/**
 * Keeps one Kinesis shard's resume position (the DoFn is keyed by shard id). It collects, per record, that it was read
 * and how many parts it has, and each part its store made durable; every {@code interval} it walks the shard in
 * Kinesis order from its position ({@link ShardSequence}) over the records that are complete, stops at the first that
 * is not (unread, or a part still pending), and stores the new position ({@link ShardPositionStore}).
 *
 * <p>Walking Kinesis, rather than trusting the order events arrive in, is what makes the position safe on any runner:
 * bundles of one shard may be decoded and written out of order, and a record read late is never passed over, whatever
 * the watermark does. Events of records at or before the position (a replay) are dropped.
 */
final class TrackShardPositionsFn extends DoFn<KV<String, ShardEvent>, Void> {
  /** GetRecords returns at most this many records. */
  static final int MAX_RECORDS = 10_000;

  private final ShardSequence shards;
  private final ShardPositionStore store;
  private final Map<String, ShardPosition> applied;
  private final Duration interval;
  private final String metricPrefix;
  private final Counter covered;
  private final Counter advances;
  private transient ShardSequence.Reader reader;
  private transient ShardPositionStore.Writer writer;

  @StateId("events")
  private final StateSpec<BagState<ShardEvent>> eventsSpec = StateSpecs.bag(ShardEvent.Coder.of());

  @StateId("sequence")
  private final StateSpec<ValueState<String>> sequenceSpec = StateSpecs.value(StringUtf8Coder.of());

  @StateId("arrival")
  private final StateSpec<ValueState<Long>> arrivalSpec = StateSpecs.value(VarLongCoder.of());

  @StateId("armed")
  private final StateSpec<ValueState<Boolean>> armedSpec = StateSpecs.value(BooleanCoder.of());

  @TimerId("walk")
  private final TimerSpec walkSpec = TimerSpecs.timer(TimeDomain.PROCESSING_TIME);

  /** A last walk when the input ends (a bounded replay, a drained pipeline). */
  @TimerId("end")
  private final TimerSpec endSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  /**
   * {@code metricPrefix} names the store in the counters ({@code <prefix>RecordsCovered}, {@code
   * <prefix>PositionsAdvanced}).
   */
  TrackShardPositionsFn(StreamResume resume, ShardPositionStore store, Duration interval, String metricPrefix) {
    this.shards = resume.shards();
    this.applied = resume.applied();
    this.store = store;
    this.interval = interval;
    this.metricPrefix = metricPrefix;
    this.covered = Metrics.counter(StreamToWal.METRICS, metricPrefix + "RecordsCovered");
    this.advances = Metrics.counter(StreamToWal.METRICS, metricPrefix + "PositionsAdvanced");
  }

  @Setup
  public void setup() throws IOException {
    reader = shards.open();
    writer = store.open();
  }

  @ProcessElement
  public void process(@Element KV<String, ShardEvent> e, @StateId("events") BagState<ShardEvent> events,
      @StateId("armed") ValueState<Boolean> armed, @TimerId("walk") Timer walk, @TimerId("end") Timer end) {
    events.add(e.getValue());
    if (!Boolean.TRUE.equals(armed.read())) {
      walk.offset(interval).setRelative();
      end.set(GlobalWindow.INSTANCE.maxTimestamp());
      armed.write(true);
    }
  }

  @OnTimer("end")
  public void onEnd(@Key String shardId, @StateId("events") BagState<ShardEvent> events,
      @StateId("sequence") ValueState<String> sequence, @StateId("arrival") ValueState<Long> arrival,
      @StateId("armed") ValueState<Boolean> armed, @TimerId("walk") Timer walk) throws IOException {
    walk(shardId, events, sequence, arrival);
    armed.write(false); // the input has ended: what is still incomplete stays so
  }

  @OnTimer("walk")
  public void onWalk(@Key String shardId, @StateId("events") BagState<ShardEvent> events,
      @StateId("sequence") ValueState<String> sequence, @StateId("arrival") ValueState<Long> arrival,
      @StateId("armed") ValueState<Boolean> armed, @TimerId("walk") Timer walk) throws IOException {
    if (walk(shardId, events, sequence, arrival)) {
      walk.offset(interval).setRelative();
    } else {
      armed.write(false);
    }
  }

  /** Walks the shard over the complete records and stores the new position; whether records remain pending. */
  private boolean walk(String shardId, BagState<ShardEvent> events, ValueState<String> sequence,
      ValueState<Long> arrival) throws IOException {
    ShardPosition at = sequence.read() == null ? applied.get(shardId)
        : new ShardPosition(sequence.read(), Instant.ofEpochMilli(arrival.read()));
    Map<String, ShardEvent> records = new HashMap<>();
    for (ShardEvent e : events.read()) {
      if (at == null || !at.covers(e.sequenceNumber())) {
        records.merge(e.sequenceNumber(), e, ShardEvent::plus);
      }
    }
    ShardPosition start = at;
    long complete = records.values().stream().filter(ShardEvent::complete).count();
    walking:
    while (complete > 0) {
      List<ShardPosition> next = reader.next(shardId, at, (int) Math.min(MAX_RECORDS, complete + 1));
      if (next.isEmpty()) {
        break;
      }
      for (ShardPosition p : next) {
        ShardEvent e = records.get(p.sequenceNumber());
        if (e == null || !e.complete()) {
          break walking; // not read yet, or a part still pending: nothing after it may be covered
        }
        records.remove(p.sequenceNumber());
        at = p;
        complete--;
        covered.inc();
      }
    }
    if (at != null && at != start) {
      writer.advance(shardId, at);
      advances.inc();
      sequence.write(at.sequenceNumber());
      arrival.write(at.arrival().toEpochMilli());
    }
    events.clear();
    records.values().forEach(events::add);
    return !records.isEmpty();
  }

  @Teardown
  public void teardown() {
    if (reader != null) {
      reader.close();
    }
    if (writer != null) {
      writer.close();
    }
  }
}
