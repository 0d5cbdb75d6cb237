package io.pagemark.transforms.source;

import io.pagemark.change.IndexChange;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.transforms.order.OrderGroups;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PDone;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * The shape every change-stream sink shares: drop the records applied before this run, decode the rest, write each
 * group's changes and the dead letters once per flush interval, and move each shard's resume position over the records
 * whose every part is durable, in Kinesis order ({@link TrackShardPositionsFn}). A store supplies its two write steps,
 * which name the record of each part they made durable, and where its positions live.
 */
public final class ChangeStreamWrites {
  private ChangeStreamWrites() {}

  /**
   * A store's steps. {@code changes} writes one group's batch and outputs the record of each change it made durable;
   * {@code deadLetters} writes one shard of dead letters and outputs the record of each; {@code positions} keeps the
   * store's shard positions, moved only after those writes; {@code store} prefixes the tracker's counters
   * ({@code walRecordsCovered}, {@code redisPositionsAdvanced}).
   */
  public record Steps(
      String changesName, DoFn<KV<String, Iterable<KV<RecordRef, IndexChange>>>, RecordRef> changes,
      String deadLettersName, DoFn<KV<Integer, Iterable<KV<RecordRef, String>>>, RecordRef> deadLetters,
      String positionsName, String store, ShardPositionStore positions) {}

  /**
   * Applies {@code steps} to {@code records}, grouped by the schema's group key and flushed every {@code flush};
   * {@code resume} says which records were applied before and how to prove the shards' order.
   */
  public static PDone write(PCollection<KinesisRecord> records, DecodeChangesFn decode, KeySchema schema,
      Duration flush, StreamResume resume, Steps steps) {
    PCollection<KinesisRecord> fresh = resume.applied().isEmpty() ? records
        : records.apply("Drop records applied before",
            Filter.by(r -> !resume.applied(r.getShardId(), r.getSequenceNumber())));
    PCollectionTuple decoded =
        fresh.apply(
            "Decode change records",
            ParDo.of(decode)
                .withOutputTags(DecodeChangesFn.CHANGES,
                    TupleTagList.of(DecodeChangesFn.DEAD_LETTERS).and(DecodeChangesFn.RECORDS)));

    PCollection<RecordRef> written =
        decoded
            .get(DecodeChangesFn.CHANGES)
            .setCoder(KvCoder.of(RecordRef.Coder.of(), IndexChangeCoder.of()))
            .apply("Key by " + schema.groupAttribute(),
                WithKeys.<String, KV<RecordRef, IndexChange>>of(c -> OrderGroups.groupId(c.getValue().group()))
                    .withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), KvCoder.of(RecordRef.Coder.of(), IndexChangeCoder.of())))
            .apply("Flush every " + flush.getMillis() + " ms", StreamWindows.flush(flush))
            .apply("Group by " + schema.groupAttribute(), GroupByKey.create())
            .apply(steps.changesName(), ParDo.of(steps.changes()))
            .setCoder(RecordRef.Coder.of());

    PCollection<RecordRef> deadLetters =
        decoded
            .get(DecodeChangesFn.DEAD_LETTERS)
            .setCoder(KvCoder.of(RecordRef.Coder.of(), StringUtf8Coder.of()))
            .apply("Shard dead letters",
                WithKeys.<Integer, KV<RecordRef, String>>of(
                        l -> Math.floorMod(l.getValue().hashCode(), StreamWindows.DEAD_LETTER_SHARDS))
                    .withKeyType(TypeDescriptors.integers()))
            .setCoder(KvCoder.of(VarIntCoder.of(), KvCoder.of(RecordRef.Coder.of(), StringUtf8Coder.of())))
            .apply("Flush dead letters", StreamWindows.flush(flush))
            .apply("Group dead letters", GroupByKey.create())
            .apply(steps.deadLettersName(), ParDo.of(steps.deadLetters()))
            .setCoder(RecordRef.Coder.of());

    KvCoder<String, ShardEvent> events = KvCoder.of(StringUtf8Coder.of(), ShardEvent.Coder.of());
    TypeDescriptor<KV<String, ShardEvent>> eventType =
        TypeDescriptors.kvs(TypeDescriptors.strings(), TypeDescriptor.of(ShardEvent.class));
    PCollection<KV<String, ShardEvent>> durable =
        PCollectionList.of(written).and(deadLetters)
            .apply("Everything written", Flatten.pCollections())
            .apply("Parts written", MapElements.into(eventType)
                .via(r -> KV.of(r.shardId(), ShardEvent.written(r.sequenceNumber()))))
            .setCoder(events);
    // one windowing for both inputs of the tracker: the global window, fired per element (its state is per shard)
    Window<KV<String, ShardEvent>> perElement = Window.<KV<String, ShardEvent>>into(new GlobalWindows())
        .triggering(DefaultTrigger.of()).withAllowedLateness(Duration.ZERO).discardingFiredPanes();
    PCollectionList.of(decoded.get(DecodeChangesFn.RECORDS).setCoder(events).apply("Records read", perElement))
        .and(durable.apply("Parts durable", perElement))
        .apply("Per shard", Flatten.pCollections())
        .apply(steps.positionsName(), ParDo.of(new TrackShardPositionsFn(resume, steps.positions(),
            flush.isShorterThan(Duration.standardSeconds(1)) ? Duration.standardSeconds(1) : flush,
            steps.store())));
    return PDone.in(records.getPipeline());
  }
}
