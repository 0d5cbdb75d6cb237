package io.pagemark.transforms.sink.file;

import io.pagemark.change.ChangeScenario;
import io.pagemark.commit.IndexCommit;
import io.pagemark.commit.IndexCommitTest;
import io.pagemark.commit.TestIndex;
import io.pagemark.change.Records;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;
import io.pagemark.transforms.TestPipelineExtension;
import io.pagemark.transforms.sink.redis.StreamToRedis;
import io.pagemark.transforms.source.ListShardSequence;
import io.pagemark.transforms.source.StreamResume;
import io.pagemark.transforms.source.TestKinesisRecords;
import io.pagemark.wal.ShardPosition;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The stream's Beam pipeline on the DirectRunner, fed records directly (no Kinesis): what lands in the WAL. */
@ExtendWith(TestPipelineExtension.class)
class StreamToWalTest {
  static final long T0 = 1_700_000_000_000L;

  static TimestampedValue<KinesisRecord> record(byte[] data, long sequence, long arrivalMillis) {
    return TestKinesisRecords.record(data, sequence, arrivalMillis);
  }

  @Test
  void everyChangeLandsInTheWalOnceAndBadRecordsAreDeadLetters(TestPipeline p, @TempDir Path root)
      throws IOException {
    ChangeScenario s = new ChangeScenario(21, 700, 80, T0);
    List<TimestampedValue<KinesisRecord>> input = new ArrayList<>();
    for (int i = 0; i < s.records.size(); i++) {
      input.add(record(Records.bytes(s.records.get(i)), 1000 + i, T0 + 5 + i * 10L));
    }
    List<String> bad = List.of("{oops", "{\"eventName\":\"TRUNCATE\",\"dynamodb\":{}}", "[]");
    for (int i = 0; i < bad.size(); i++) {
      input.add(record(bad.get(i).getBytes(StandardCharsets.UTF_8), 9000 + i, T0 + 7 + i * 10L));
    }
    input.add(record(new byte[] {(byte) 0xff, 0x00}, 9100, T0 + 9));
    java.util.Collections.shuffle(input, new Random(1));

    p.apply(Create.timestamped(input).withCoder(new TestKinesisRecords.Coder()))
        .apply(StreamToWal.of(Records.SCHEMA).withOutput(root.toString())
            .withResume(ListShardSequence.of(input).fresh()));
    p.run().waitUntilFinish();

    List<String> written = new ArrayList<>();
    Wal wal = new Wal(root);
    for (Path dir : wal.pendingGroupDirs()) {
      for (Path seg : Wal.segments(dir)) {
        WalSegment segment = WalSegment.read(seg);
        assertThat(segment.attributes(), equalTo(Records.SCHEMA.storedAttributes()));
        segment.changes().forEach(c -> written.add(c.toString()));
      }
    }
    List<String> expected = s.changes(0, s.records.size()).stream().map(Object::toString).collect(Collectors.toList());
    assertThat(written.size(), greaterThan(250));
    assertThat(written, containsInAnyOrder(expected.toArray()));

    List<String> deadLetters = new ArrayList<>();
    try (Stream<Path> files = Files.list(wal.deadLetterDir())) {
      for (Path f : (Iterable<Path>) files::iterator) {
        deadLetters.addAll(Files.readAllLines(f));
      }
    }
    assertThat(deadLetters.size(), is(4));
    assertThat(String.join("\n", deadLetters), containsString("\"reason\":\"not JSON"));
    assertThat(String.join("\n", deadLetters), containsString("unknown eventName \\\"TRUNCATE\\\""));
    assertThat(String.join("\n", deadLetters), containsString("\"dataBase64\":\"/wA=\""));
    assertThat(String.join("\n", deadLetters), containsString("\"sequenceNumber\":\"9001\""));
    // every record of the shard is durable: the position is the shard's last record (sequence 9100, a dead letter)
    assertThat(wal.shardPositions(), equalTo(Map.of(TestKinesisRecords.SHARD,
        new ShardPosition("9100", Instant.ofEpochMilli(T0 + 9)))));

    // and the commit turns the WAL into the index of the final table
    TestIndex.writeBuild(root, "b0", T0, Records.SCHEMA, s.entriesAfter(0), TestIndex.FAKE_DYNAMO);
    IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    IndexCommitTest.assertIndexIs(root, s.entriesAfter(s.records.size()), TestIndex.FAKE_DYNAMO);
  }

  @Test
  @ExtendWith(RedisExtension.class)
  void aStreamIntoTheWalAndRedisCountsEachRecordOnce(TestPipeline p, @TempDir Path root, RedisServer redis)
      throws Exception {
    ChangeScenario s = new ChangeScenario(5, 60, 10, T0);
    List<TimestampedValue<KinesisRecord>> input = new ArrayList<>();
    for (int i = 0; i < s.records.size(); i++) {
      input.add(record(Records.bytes(s.records.get(i)), 1000 + i, T0 + 5 + i * 10L));
    }
    PCollection<KinesisRecord> records =
        p.apply(Create.timestamped(input).withCoder(new TestKinesisRecords.Coder()));
    StreamResume resume = ListShardSequence.of(input).fresh();
    records.apply("WAL", StreamToWal.of(Records.SCHEMA).withOutput(root.toString()).withResume(resume));
    records.apply("Redis", StreamToRedis.of(Records.SCHEMA)
        .to(RedisAddress.parse(redis.uri()), "count:" + UUID.randomUUID() + ":").withoutRecordCounts()
        .withResume(resume));
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertThat(counter(result, "recordsRead"), is((long) s.records.size()));
    assertThat(counter(result, "changes"), is((long) s.changes(0, s.records.size()).size()));
  }

  @Test
  void aShardPositionStopsBeforeARecordNotYetReadAndARestartDropsWhatItCovers(TestPipeline p, @TempDir Path root)
      throws IOException {
    ChangeScenario s = new ChangeScenario(9, 200, 20, T0);
    List<TimestampedValue<KinesisRecord>> all = new ArrayList<>();
    for (int i = 0; i < s.records.size(); i++) {
      all.add(record(Records.bytes(s.records.get(i)), 1000 + i, T0 + 5 + i * 10L));
    }
    // Kinesis holds record 1120, but this run never gets it (a reader that has not reached it, say): whatever else is
    // durable, the shard's position may not pass it
    List<TimestampedValue<KinesisRecord>> delivered = new ArrayList<>(all);
    delivered.remove(120);
    java.util.Collections.shuffle(delivered, new Random(3));
    ListShardSequence kinesis = ListShardSequence.of(all);
    p.apply(Create.timestamped(delivered).withCoder(new TestKinesisRecords.Coder()))
        .apply(StreamToWal.of(Records.SCHEMA).withOutput(root.toString()).withResume(kinesis.fresh()));
    p.run().waitUntilFinish();
    Map<String, ShardPosition> positions = new Wal(root).shardPositions();
    assertThat(positions, equalTo(Map.of(TestKinesisRecords.SHARD,
        new ShardPosition("1119", Instant.ofEpochMilli(T0 + 5 + 119 * 10L)))));

    // a restart reads everything again (as from a time before the position) and applies only what follows it
    org.apache.beam.sdk.Pipeline again = org.apache.beam.sdk.Pipeline.create(p.getOptions());
    again.apply(Create.timestamped(all).withCoder(new TestKinesisRecords.Coder()))
        .apply(StreamToWal.of(Records.SCHEMA).withOutput(root.toString())
            .withResume(new StreamResume(kinesis, positions)));
    PipelineResult result = again.run();
    result.waitUntilFinish();
    assertThat(counter(result, "recordsRead"), is((long) s.records.size() - 120));
    assertThat(new Wal(root).shardPositions().get(TestKinesisRecords.SHARD).sequenceNumber(),
        equalTo(Long.toString(1000 + s.records.size() - 1)));
    TestIndex.writeBuild(root, "b0", T0, Records.SCHEMA, s.entriesAfter(0), TestIndex.FAKE_DYNAMO);
    IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    IndexCommitTest.assertIndexIs(root, s.entriesAfter(s.records.size()), TestIndex.FAKE_DYNAMO);
  }

  private static long counter(PipelineResult result, String name) {
    long total = 0;
    for (MetricResult<Long> c : result.metrics().queryMetrics(MetricsFilter.builder()
        .addNameFilter(MetricNameFilter.named(StreamToWal.METRICS, name)).build()).getCounters()) {
      total += c.getAttempted();
    }
    return total;
  }
}
