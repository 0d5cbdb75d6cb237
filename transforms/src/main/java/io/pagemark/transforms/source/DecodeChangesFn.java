package io.pagemark.transforms.source;

import io.pagemark.change.ChangeDecoder;
import io.pagemark.change.IndexChange;
import io.pagemark.transforms.sink.file.StreamToWal;

import io.pagemark.key.Json;
import io.pagemark.change.ChangeDecoder.Decoded;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.apache.beam.sdk.io.aws2.kinesis.KinesisRecord;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;

/**
 * Decodes each Kinesis record into its index changes ({@link ChangeDecoder}), counts what each record did, and sends
 * records that cannot be applied to the dead-letter output as JSON lines with the reason. Changes and dead letters
 * carry the record they came from; each record also yields one {@link ShardEvent#read} keyed by its shard, with the
 * number of parts it has to write, so that the shard's position can move over it once they are durable (at once when
 * it changes nothing).
 */
public final class DecodeChangesFn extends DoFn<KinesisRecord, KV<RecordRef, IndexChange>> {
  public static final TupleTag<KV<RecordRef, IndexChange>> CHANGES = new TupleTag<>("changes") {};
  public static final TupleTag<KV<RecordRef, String>> DEAD_LETTERS = new TupleTag<>("deadLetters") {};
  public static final TupleTag<KV<String, ShardEvent>> RECORDS = new TupleTag<>("records") {};

  private final ChangeDecoder decoder;
  private final boolean counted;
  private final Counter read = Metrics.counter(StreamToWal.METRICS, "recordsRead");
  private final Counter changes = Metrics.counter(StreamToWal.METRICS, "changes");
  private final Map<ChangeDecoder.Outcome, Counter> outcomes = new EnumMap<>(ChangeDecoder.Outcome.class);

  public DecodeChangesFn(ChangeDecoder decoder) {
    this(decoder, true);
  }

  /**
   * With {@code counted} false the records and their outcomes are not counted: another decoder of the same records in
   * the pipeline (a stream that feeds the WAL and Redis) counts them once.
   */
  public DecodeChangesFn(ChangeDecoder decoder, boolean counted) {
    this.decoder = decoder;
    this.counted = counted;
    for (ChangeDecoder.Outcome o : ChangeDecoder.Outcome.values()) {
      outcomes.put(o, Metrics.counter(StreamToWal.METRICS, counterName(o)));
    }
  }

  /** The counter of an outcome: {@code added}, {@code movedGroup}, {@code notInIndex}, {@code deadLetters}, ... */
  static String counterName(ChangeDecoder.Outcome o) {
    if (o == ChangeDecoder.Outcome.DEAD_LETTER) {
      return "deadLetters";
    }
    String[] words = o.name().toLowerCase(Locale.ROOT).split("_");
    StringBuilder b = new StringBuilder(words[0]);
    for (int i = 1; i < words.length; i++) {
      b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
    }
    return b.toString();
  }

  @ProcessElement
  public void process(@Element KinesisRecord record, MultiOutputReceiver out) {
    if (counted) {
      read.inc();
    }
    byte[] data = record.getDataAsBytes();
    Decoded d = decoder.decode(data, record.getSequenceNumber());
    if (counted) {
      outcomes.get(d.outcome()).inc();
    }
    RecordRef ref = new RecordRef(record.getShardId(), record.getSequenceNumber());
    int parts = d.changes().size();
    if (d.outcome() == ChangeDecoder.Outcome.DEAD_LETTER) {
      out.get(DEAD_LETTERS).output(KV.of(ref, deadLetter(record, data, d.deadLetterReason())));
      parts++;
    }
    for (IndexChange c : d.changes()) {
      out.get(CHANGES).output(KV.of(ref, c));
    }
    if (counted) {
      changes.inc(d.changes().size());
    }
    out.get(RECORDS).output(KV.of(record.getShardId(), ShardEvent.read(record.getSequenceNumber(),
        record.getApproximateArrivalTimestamp().getMillis(), parts)));
  }

  /** {@code {"reason", "shardId", "sequenceNumber", "arrival", "data"}}; data as text when it is UTF-8, else base64. */
  static String deadLetter(KinesisRecord r, byte[] data, String reason) {
    String text;
    String field;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(java.nio.ByteBuffer.wrap(data)).toString();
      field = "data";
    } catch (CharacterCodingException e) {
      text = Base64.getEncoder().encodeToString(data);
      field = "dataBase64";
    }
    return Json.write(Json.object().put("reason", reason).put("shardId", r.getShardId())
        .put("sequenceNumber", r.getSequenceNumber()).put("arrival", r.getApproximateArrivalTimestamp().toString())
        .put(field, text));
  }
}
