package io.pagemark.transforms.sink.markers;

import io.pagemark.change.ChangeDecoder;
import io.pagemark.change.IndexChange;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.markers.MarkerSpec;
import io.pagemark.transforms.order.OrderGroups;
import io.pagemark.transforms.source.DecodeChangesFn;
import io.pagemark.transforms.source.RecordRef;
import io.pagemark.transforms.source.IndexChangeCoder;
import io.pagemark.transforms.source.StreamWindows;
import java.util.Objects;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.Values;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps page markers inside DynamoDB current from the table's change stream: decodes each Kinesis record into index
 * changes, groups them by group key, and every flush interval applies each group's changes with
 * {@link io.pagemark.commit.markers.MarkerChanges} (a new newest item in one transaction; any other change rewrites
 * the markers after it in transactions of at most 100 actions). Every application reads the table as it is, so a
 * replayed or late record changes nothing; no resume position is kept. Records that cannot be decoded are counted;
 * when no other branch of the pipeline writes them as dead letters, each is logged as a warning with its reason.
 * Emits the number of changes applied per flush and group.
 *
 * <p>Immutable and serializable.
 */
public final class StreamToMarkers extends PTransform<PCollection<KinesisRecord>, PCollection<Long>> {
  private final KeySchema schema;
  private final MarkerSpec spec;
  private final Duration flush;
  private final boolean countRecords;

  private StreamToMarkers(KeySchema schema, MarkerSpec spec, Duration flush, boolean countRecords) {
    this.schema = schema;
    this.spec = spec;
    this.flush = flush;
    this.countRecords = countRecords;
  }

  /**
   * The markers at {@code spec}, of the GSI {@code schema} describes, flushed every second.
   *
   * @throws NullPointerException if either argument is null
   */
  public static StreamToMarkers of(KeySchema schema, MarkerSpec spec) {
    return new StreamToMarkers(Objects.requireNonNull(schema, "schema"), Objects.requireNonNull(spec, "spec"),
        Duration.standardSeconds(1), true);
  }

  /**
   * How long changes wait, at most, before they are applied.
   *
   * @throws IllegalArgumentException unless positive
   */
  public StreamToMarkers withFlushInterval(Duration d) {
    if (d.getMillis() < 1) {
      throw new IllegalArgumentException("flush interval must be positive, not " + d);
    }
    return new StreamToMarkers(schema, spec, d, countRecords);
  }

  /** Leaves the records uncounted, for a pipeline where another branch reads the same records and counts them. */
  public StreamToMarkers withoutRecordCounts() {
    return new StreamToMarkers(schema, spec, flush, false);
  }

  @Override
  public PCollection<Long> expand(PCollection<KinesisRecord> records) {
    PCollectionTuple decoded = records
        .apply("Decode change records",
            ParDo.of(new DecodeChangesFn(new ChangeDecoder(schema), countRecords))
                .withOutputTags(DecodeChangesFn.CHANGES,
                    TupleTagList.of(DecodeChangesFn.DEAD_LETTERS).and(DecodeChangesFn.RECORDS)));
    if (countRecords) {
      // alone in its pipeline: no WAL or Redis branch keeps the dead letters, so their reasons go to the log
      decoded.get(DecodeChangesFn.DEAD_LETTERS)
          .setCoder(KvCoder.of(RecordRef.Coder.of(), StringUtf8Coder.of()))
          .apply("Dead letters", Values.create())
          .apply("Log dead letters", ParDo.of(new LogDeadLettersFn()));
    }
    return decoded
        .get(DecodeChangesFn.CHANGES)
        .setCoder(KvCoder.of(RecordRef.Coder.of(), IndexChangeCoder.of()))
        .apply("Changes", Values.create())
        .apply("Key by " + schema.groupAttribute(),
            WithKeys.<String, IndexChange>of(c -> OrderGroups.groupId(c.group()))
                .withKeyType(TypeDescriptors.strings()))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), IndexChangeCoder.of()))
        .apply("Flush every " + flush.getMillis() + " ms", StreamWindows.flush(flush))
        .apply("Group by " + schema.groupAttribute(), GroupByKey.create())
        .apply("Apply to page markers", ParDo.of(new ApplyMarkerChangesFn(spec)))
        .setCoder(VarLongCoder.of());
  }

  /** Writes each dead letter (the record and why it could not be decoded) to the worker's log as a warning. */
  static final class LogDeadLettersFn extends DoFn<String, Void> {
    private static final Logger LOG = LoggerFactory.getLogger(StreamToMarkers.class);

    @ProcessElement
    public void process(@Element String deadLetter) {
      LOG.warn("dead letter (counted, not applied to the page markers): {}", deadLetter);
    }
  }
}
