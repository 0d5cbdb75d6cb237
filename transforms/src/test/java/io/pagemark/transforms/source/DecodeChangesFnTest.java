package io.pagemark.transforms.source;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.change.ChangeDecoder;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Records;
import io.pagemark.change.Version;
import io.pagemark.key.KeyValue;
import io.pagemark.transforms.TestPipelineExtension;
import io.pagemark.transforms.sink.file.StreamToWal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.Values;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link DecodeChangesFn} on the DirectRunner: each record of every kind becomes its index changes, a dead letter
 * that says why and keeps the record, and one read event with its parts; its outcome is counted once, by the decoder that counts.
 */
@ExtendWith(TestPipelineExtension.class)
class DecodeChangesFnTest {
  static final long T = 1_700_000_000_000L;

  static String record(String event, String table, String keys, String oldImage, String newImage) {
    return "{\"eventName\":\"" + event + "\",\"tableName\":\"" + table + "\",\"dynamodb\":{"
        + "\"ApproximateCreationDateTime\":" + T + ",\"Keys\":" + keys
        + (oldImage == null ? "" : ",\"OldImage\":" + oldImage)
        + (newImage == null ? "" : ",\"NewImage\":" + newImage) + "}}";
  }

  static String image(String pk, String group, String sortKey, String other) {
    return "{\"PK\":{\"S\":\"" + pk + "\"}" + (group == null ? "" : ",\"PK2\":{\"S\":\"" + group + "\"}")
        + ",\"SK2\":{\"S\":\"" + sortKey + "\"},\"note\":{\"S\":\"" + other + "\"}}";
  }

  static String keys(String pk) {
    return "{\"PK\":{\"S\":\"" + pk + "\"}}";
  }

  /** One record of each outcome, with sequence numbers 1 to 8. */
  static List<TimestampedValue<KinesisRecord>> input() {
    List<String> json = List.of(
        record("INSERT", "events", keys("p1"), null, image("p1", "a/b", "s1", "x")),
        record("MODIFY", "events", keys("p2"), image("p2", "g1", "s2", "x"), image("p2", "g2", "s2", "x")),
        record("MODIFY", "events", keys("p3"), image("p3", "g1", "s3", "x"), image("p3", "g1", "s3", "y")),
        record("REMOVE", "events", keys("p4"), image("p4", "g1", "s4", "x"), null),
        record("INSERT", "events", keys("p5"), null, image("p5", null, "s5", "x")),
        record("INSERT", "other", keys("p6"), null, image("p6", "g1", "s6", "x")),
        "{oops");
    List<TimestampedValue<KinesisRecord>> records = new ArrayList<>();
    for (int i = 0; i < json.size(); i++) {
      records.add(TestKinesisRecords.record(json.get(i).getBytes(StandardCharsets.UTF_8), i + 1, T + i));
    }
    records.add(TestKinesisRecords.record(new byte[] {(byte) 0xff, 0x00}, 8, T + 7));
    return records;
  }

  /** Per record of {@link #input}: its shard, sequence number and parts (changes, or one dead letter). */
  static final String[] PARTS = {TestKinesisRecords.SHARD + " 1:1", TestKinesisRecords.SHARD + " 2:2",
      TestKinesisRecords.SHARD + " 3:0", TestKinesisRecords.SHARD + " 4:1", TestKinesisRecords.SHARD + " 5:0",
      TestKinesisRecords.SHARD + " 6:0", TestKinesisRecords.SHARD + " 7:1", TestKinesisRecords.SHARD + " 8:1"};

  static IndexChange change(String group, String pk, long sequence, String removed, String added) {
    return new IndexChange(KeyValue.ofString(group), List.of(KeyValue.ofString(pk)),
        new Version(T * 1000, Long.toString(sequence)),
        removed == null ? null : List.of(KeyValue.ofString(removed), KeyValue.ofString(pk)),
        added == null ? null : List.of(KeyValue.ofString(added), KeyValue.ofString(pk)));
  }

  @Test
  void everyRecordBecomesItsChangesOrADeadLetterAndIsCountedOnce(TestPipeline p) {
    PCollection<KinesisRecord> records =
        p.apply(Create.timestamped(input()).withCoder(new TestKinesisRecords.Coder()));
    List<IndexChange> expected = List.of(
        change("a/b", "p1", 1, null, "s1"),
        change("g1", "p2", 2, "s2", null),
        change("g2", "p2", 2, null, "s2"),
        change("g1", "p4", 4, "s4", null));
    for (boolean counted : new boolean[] {true, false}) {
      PCollectionTuple decoded = records.apply(counted ? "Decode and count" : "Decode without counting",
          ParDo.of(new DecodeChangesFn(new ChangeDecoder(Records.SCHEMA), counted))
              .withOutputTags(DecodeChangesFn.CHANGES,
                  TupleTagList.of(DecodeChangesFn.DEAD_LETTERS).and(DecodeChangesFn.RECORDS)));
      PAssert.that(decoded.get(DecodeChangesFn.CHANGES)
              .setCoder(KvCoder.of(RecordRef.Coder.of(), IndexChangeCoder.of()))
              .apply((counted ? "counted" : "uncounted") + " changes", Values.create()))
          .containsInAnyOrder(expected);
      PAssert.that(decoded.get(DecodeChangesFn.DEAD_LETTERS)
              .setCoder(KvCoder.of(RecordRef.Coder.of(), StringUtf8Coder.of()))
              .apply((counted ? "counted" : "uncounted") + " dead letters", Values.create())).satisfies(lines -> {
        List<String> all = new ArrayList<>();
        lines.forEach(all::add);
        assertThat(all.size(), is(2));
        all.forEach(l -> assertThat(l, startsWith("{\"reason\":\"not JSON: ")));
        assertThat(String.join("\n", all), containsString("\"shardId\":\"shardId-000000000000\","
            + "\"sequenceNumber\":\"8\",\"arrival\":\"2023-11-14T22:13:20.007Z\",\"dataBase64\":\"/wA=\"}"));
        assertThat(String.join("\n", all), containsString("\"sequenceNumber\":\"7\","
            + "\"arrival\":\"2023-11-14T22:13:20.006Z\",\"data\":\"{oops\"}"));
        return null;
      });
      // one read event per record, with the parts it has to write: its changes, or its dead letter
      PAssert.that(decoded.get(DecodeChangesFn.RECORDS)
              .setCoder(KvCoder.of(StringUtf8Coder.of(), ShardEvent.Coder.of()))
              .apply("Parts of " + (counted ? "counted" : "uncounted"), MapElements.into(TypeDescriptors.strings())
                  .via(e -> e.getKey() + " " + e.getValue().sequenceNumber() + ":" + e.getValue().expected())))
          .containsInAnyOrder(PARTS);
    }
    PipelineResult result = p.run();
    result.waitUntilFinish();

    Map<String, Long> counted = Map.of("recordsRead", 8L, "changes", 4L, "added", 1L, "movedGroup", 1L,
        "unchanged", 1L, "removed", 1L, "notInIndex", 1L, "otherTable", 1L, "deadLetters", 2L,
        "movedInGroup", 0L);
    counted.forEach((name, n) -> assertThat(name + ", counted by one decoder of the two", counter(result, name),
        is(n)));
  }

  static long counter(PipelineResult result, String name) {
    long total = 0;
    for (MetricResult<Long> c : result.metrics().queryMetrics(MetricsFilter.builder()
        .addNameFilter(MetricNameFilter.named(StreamToWal.METRICS, name)).build()).getCounters()) {
      total += c.getAttempted();
    }
    return total;
  }
}
