package io.pagemark.pipelines.relay;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.change.AttributeValueJson;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Record;

/**
 * A DynamoDB Streams record as "Kinesis Data Streams for DynamoDB" writes it into Kinesis: JSON with
 * {@code awsRegion}, {@code eventID}, {@code eventName}, {@code userIdentity}, {@code recordFormat},
 * {@code tableName}, {@code dynamodb} ({@code ApproximateCreationDateTime} with its precision, {@code Keys},
 * {@code NewImage}, {@code OldImage}, {@code SizeBytes}) and {@code eventSource}, under a partition key derived from the
 * item's key.
 */
final class KinesisChangeRecords {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private KinesisChangeRecords() {}

  /**
   * The creation time to stamp on a record, in microseconds: now, or the record's own time if later, and always after
   * {@code previousMicros} (the last stamp of its shard), so that an item's records stay strictly ordered.
   */
  static long stamp(Record rec, long previousMicros) {
    Instant now = Instant.now();
    long micros = TimeUnit.SECONDS.toMicros(now.getEpochSecond()) + now.getNano() / 1000;
    Instant own = rec.dynamodb().approximateCreationDateTime();
    if (own != null) {
      micros = Math.max(micros, TimeUnit.SECONDS.toMicros(own.getEpochSecond()) + own.getNano() / 1000);
    }
    return Math.max(micros, previousMicros + 1);
  }

  /** The record's JSON, with {@code ApproximateCreationDateTime} in microseconds. */
  static String json(Record rec, String table, long creationMicros) {
    ObjectNode r = NODES.objectNode();
    r.put("awsRegion", rec.awsRegion());
    r.put("eventID", rec.eventID());
    r.put("eventName", rec.eventNameAsString());
    r.putNull("userIdentity");
    r.put("recordFormat", "application/json");
    r.put("tableName", table);
    ObjectNode d = r.putObject("dynamodb");
    d.put("ApproximateCreationDateTime", creationMicros);
    d.put("ApproximateCreationDateTimePrecision", "MICROSECOND");
    d.set("Keys", AttributeValueJson.toJson(rec.dynamodb().keys()));
    if (rec.dynamodb().hasNewImage()) {
      d.set("NewImage", AttributeValueJson.toJson(rec.dynamodb().newImage()));
    }
    if (rec.dynamodb().hasOldImage()) {
      d.set("OldImage", AttributeValueJson.toJson(rec.dynamodb().oldImage()));
    }
    if (rec.dynamodb().sizeBytes() != null) {
      d.put("SizeBytes", rec.dynamodb().sizeBytes());
    }
    r.put("eventSource", "aws:dynamodb");
    return r.toString();
  }

  /**
   * The hex SHA-256 of the table and the item's key: one partition key per item, so that its records land in one
   * shard in order (Kinesis partition keys are at most 256 characters; item keys can be longer).
   */
  static String partitionKey(String table, Map<String, AttributeValue> keys) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(table.getBytes(StandardCharsets.UTF_8));
      for (Map.Entry<String, AttributeValue> e : new TreeMap<>(keys).entrySet()) {
        sha.update((byte) 0);
        sha.update(e.getKey().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(AttributeValueJson.toJson(e.getValue()).toString().getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
