package io.pagemark.transforms.source;

import io.pagemark.change.IndexChange;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.transforms.order.OrderGroups;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * The shape every change-stream sink shares: decode Kinesis records, write each group's changes and the dead letters
 * once per flush interval, and advance the resume position only over arrival seconds whose records are all written
 * (see {@link StreamWindows}). A store supplies its three steps; the result is the positions it advanced to.
 */
public final class ChangeStreamWrites {
  private ChangeStreamWrites() {}

  /**
   * A store's steps. {@code changes} writes one group's batch and outputs how many it wrote; {@code deadLetters}
   * writes one shard of dead letters and outputs how many; {@code advance} takes the count of writes of a complete
   * arrival second and moves the store's resume position to its end.
   */
  public record Steps(
      String changesName, DoFn<KV<String, Iterable<IndexChange>>, Long> changes,
      String deadLettersName, DoFn<KV<Integer, Iterable<String>>, Long> deadLetters,
      String advanceName, DoFn<Long, Long> advance) {}

  /** Applies {@code steps} to {@code records}, grouped by the schema's group key and flushed every {@code flush}. */
  public static PCollection<Long> write(PCollection<KinesisRecord> records, DecodeChangesFn decode, KeySchema schema,
      Duration flush, Steps steps) {
    PCollectionTuple decoded =
        records.apply(
            "Decode change records",
            ParDo.of(decode)
                .withOutputTags(DecodeChangesFn.CHANGES,
                    TupleTagList.of(DecodeChangesFn.DEAD_LETTERS).and(DecodeChangesFn.RECORDS)));

    PCollection<Long> written =
        decoded
            .get(DecodeChangesFn.CHANGES)
            .setCoder(IndexChangeCoder.of())
            .apply("Key by " + schema.groupAttribute(),
                WithKeys.<String, IndexChange>of(c -> OrderGroups.groupId(c.group()))
                    .withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), IndexChangeCoder.of()))
            .apply("Flush every " + flush.getMillis() + " ms", StreamWindows.flush(flush))
            .apply("Group by " + schema.groupAttribute(), GroupByKey.create())
            .apply(steps.changesName(), ParDo.of(steps.changes()))
            .setCoder(VarLongCoder.of());

    PCollection<Long> deadLetters =
        decoded
            .get(DecodeChangesFn.DEAD_LETTERS)
            .setCoder(StringUtf8Coder.of())
            .apply("Shard dead letters",
                WithKeys.<Integer, String>of(l -> Math.floorMod(l.hashCode(), StreamWindows.DEAD_LETTER_SHARDS))
                    .withKeyType(TypeDescriptors.integers()))
            .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()))
            .apply("Flush dead letters", StreamWindows.flush(flush))
            .apply("Group dead letters", GroupByKey.create())
            .apply(steps.deadLettersName(), ParDo.of(steps.deadLetters()))
            .setCoder(VarLongCoder.of());

    PCollection<Long> read = decoded.get(DecodeChangesFn.RECORDS).setCoder(VarLongCoder.of());
    return PCollectionList.of(StreamWindows.arrivalSeconds(read, "records"))
        .and(StreamWindows.arrivalSeconds(written, "changes"))
        .and(StreamWindows.arrivalSeconds(deadLetters, "dead letters"))
        .apply("Everything written", Flatten.pCollections())
        .apply("Per arrival second", Sum.longsGlobally().withoutDefaults())
        .apply(steps.advanceName(), ParDo.of(steps.advance()))
        .setCoder(VarLongCoder.of());
  }
}
