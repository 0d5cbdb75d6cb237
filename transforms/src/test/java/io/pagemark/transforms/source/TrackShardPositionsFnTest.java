package io.pagemark.transforms.source;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.pagemark.transforms.TestPipelineExtension;
import io.pagemark.wal.ShardPosition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link TrackShardPositionsFn} on the DirectRunner with a test stream whose processing time the test moves: what
 * each walk stores, as events of one shard arrive out of order and parts become durable one by one.
 */
@ExtendWith(TestPipelineExtension.class)
class TrackShardPositionsFnTest {
  static final String SHARD = "shardId-000000000007";
  /** Every position each test's store was asked to store, in order, by test id (the runner is in this JVM). */
  static final Map<String, List<String>> STORED = new ConcurrentHashMap<>();

  /** Remembers every advance under its test id. */
  record MemoryStore(String test) implements ShardPositionStore {
    @Override
    public Writer open() {
      return new Writer() {
        @Override
        public boolean advance(String shardId, ShardPosition p) {
          STORED.computeIfAbsent(test, t -> new ArrayList<>()).add(shardId + "@" + p.sequenceNumber());
          return true;
        }

        @Override
        public void close() {}
      };
    }
  }

  static ShardPosition at(long seq) {
    return new ShardPosition(Long.toString(seq), Instant.ofEpochMilli(1_000L * seq));
  }

  static KV<String, ShardEvent> read(long seq, int parts) {
    return KV.of(SHARD, ShardEvent.read(Long.toString(seq), 1_000L * seq, parts));
  }

  static KV<String, ShardEvent> written(long seq) {
    return KV.of(SHARD, ShardEvent.written(Long.toString(seq)));
  }

  @Test
  void aPositionMovesOnlyOverRecordsWhoseEveryPartIsDurableInKinesisOrder(TestPipeline p) {
    String test = UUID.randomUUID().toString();
    TreeMap<String, ArrayList<ShardPosition>> kinesis = new TreeMap<>();
    kinesis.put(SHARD, new ArrayList<>(List.of(at(10), at(11), at(12), at(13), at(14))));
    Duration walk = Duration.standardSeconds(1);
    TestStream<KV<String, ShardEvent>> events = TestStream.create(
            KvCoder.of(StringUtf8Coder.of(), ShardEvent.Coder.of()))
        // out of order: 12 (no parts) is complete, 11's one part is never written, 10 is not read yet
        .addElements(read(12, 0), read(11, 1))
        .advanceProcessingTime(walk.plus(walk))
        // 10 read with two parts, one of them written: still nothing may move
        .addElements(read(10, 2), written(10))
        .advanceProcessingTime(walk.plus(walk))
        // its second part: 10 is covered, and 11 holds everything after it
        .addElements(written(10), read(13, 0), read(14, 0))
        .advanceProcessingTime(walk.plus(walk))
        .advanceWatermarkToInfinity();
    p.apply(events).apply(ParDo.of(new TrackShardPositionsFn(
        new StreamResume(new ListShardSequence(kinesis), Map.of()), new MemoryStore(test), walk, "test")));
    p.run().waitUntilFinish();
    assertThat(STORED.get(test), equalTo(List.of(SHARD + "@10")));
  }

  @Test
  void aRecordReadTwiceIsCoveredOnlyOnceBothCopiesAreDurable(TestPipeline p) {
    String test = UUID.randomUUID().toString();
    TreeMap<String, ArrayList<ShardPosition>> kinesis = new TreeMap<>();
    kinesis.put(SHARD, new ArrayList<>(List.of(at(20), at(21), at(22))));
    Duration walk = Duration.standardSeconds(1);
    TestStream<KV<String, ShardEvent>> events = TestStream.create(
            KvCoder.of(StringUtf8Coder.of(), ShardEvent.Coder.of()))
        .addElements(read(20, 1), written(20), read(21, 1), read(21, 1), written(21), read(22, 0))
        .advanceProcessingTime(walk.plus(walk))
        .advanceWatermarkToInfinity();
    p.apply(events).apply(ParDo.of(new TrackShardPositionsFn(
        new StreamResume(new ListShardSequence(kinesis), Map.of()), new MemoryStore(test), walk, "test")));
    p.run().waitUntilFinish();
    assertThat(STORED.get(test), equalTo(List.of(SHARD + "@20")));
  }

  @Test
  void aRestartedTrackerWalksOnFromThePositionItWasGiven(TestPipeline p) {
    String test = UUID.randomUUID().toString();
    TreeMap<String, ArrayList<ShardPosition>> kinesis = new TreeMap<>();
    kinesis.put(SHARD, new ArrayList<>(List.of(at(10), at(11), at(12))));
    Duration walk = Duration.standardSeconds(1);
    TestStream<KV<String, ShardEvent>> events = TestStream.create(
            KvCoder.of(StringUtf8Coder.of(), ShardEvent.Coder.of()))
        // 10 was applied before this run (its events, read again, are ignored); 12 is complete, 11 is not read
        .addElements(read(10, 1), read(12, 0))
        .advanceProcessingTime(walk.plus(walk))
        .addElements(read(11, 0))
        .advanceProcessingTime(walk.plus(walk))
        .advanceWatermarkToInfinity();
    p.apply(events).apply(ParDo.of(new TrackShardPositionsFn(
        new StreamResume(new ListShardSequence(kinesis), Map.of(SHARD, at(10))), new MemoryStore(test), walk,
        "test")));
    p.run().waitUntilFinish();
    assertThat(STORED.get(test), equalTo(List.of(SHARD + "@12")));
  }
}
