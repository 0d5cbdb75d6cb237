package io.pagemark.change;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Turns one change record, in the JSON format of "Kinesis Data Streams for DynamoDB", into the changes it makes to
 * an index with a given key schema. Pure: no I/O, no clock.
 *
 * <ul>
 *   <li>INSERT adds the item's entry; REMOVE removes it.
 *   <li>MODIFY that changes the group key removes the entry from the old group and adds it to the new one (two
 *       changes); one that changes the sort key moves the entry within its group (one change); one that makes the
 *       item enter or leave the index (a sparse GSI) adds or removes it; any other MODIFY changes nothing.
 *   <li>An item the GSI would not hold (no group key or no sort key, before and after) is ignored and counted.
 *   <li>A record of another table is ignored and counted.
 *   <li>A record that cannot be applied is a dead letter with the reason: not JSON, no or unknown event name, missing
 *       or mistyped keys, no creation time, a missing image the event needs, an image whose key differs from the
 *       record's, an index key of the wrong type.
 * </ul>
 */
public final class ChangeDecoder implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a record did to the index, for counting. */
  public enum Outcome {
    /** The item entered the index (INSERT, or a MODIFY that gave it both index keys). */
    ADDED,
    /** The item left the index (REMOVE, or a MODIFY that took an index key away). */
    REMOVED,
    /** The item's group key changed. */
    MOVED_GROUP,
    /** The item's sort key changed within its group. */
    MOVED_IN_GROUP,
    /** A MODIFY of attributes the index does not store. */
    UNCHANGED,
    /** The GSI does not hold the item, before or after. */
    NOT_IN_INDEX,
    /** A record of another table. */
    OTHER_TABLE,
    /** A record that cannot be applied; see the reason. */
    DEAD_LETTER
  }

  /**
   * The decoding of one record.
   *
   * @param outcome what it did
   * @param changes the index changes, zero to two
   * @param creationMicros the record's ApproximateCreationDateTime in microseconds, or -1 for a dead letter or a
   *     record of another table
   * @param deadLetterReason why the record cannot be applied, or null
   */
  public record Decoded(Outcome outcome, List<IndexChange> changes, long creationMicros, String deadLetterReason) {
    public Decoded {
      changes = List.copyOf(changes);
    }

    static Decoded dead(String reason) {
      return new Decoded(Outcome.DEAD_LETTER, List.of(), -1, reason);
    }
  }

  private final KeySchema schema;

  public ChangeDecoder(KeySchema schema) {
    this.schema = Objects.requireNonNull(schema);
  }

  public KeySchema schema() {
    return schema;
  }

  /**
   * Decodes one record.
   *
   * @param data the record's bytes (UTF-8 JSON)
   * @param sequence the record's sequence number in its shard (decimal), or "" when unknown
   */
  public Decoded decode(byte[] data, String sequence) {
    JsonNode root;
    try {
      root = JSON.readTree(data);
    } catch (JacksonException | RuntimeException e) {
      return Decoded.dead("not JSON: " + firstLine(e.getMessage()));
    } catch (java.io.IOException e) {
      return Decoded.dead("not JSON: " + firstLine(e.getMessage()));
    }
    if (root == null || !root.isObject()) {
      return Decoded.dead("not a JSON object");
    }
    try {
      return decode(root, sequence);
    } catch (BadRecord e) {
      return Decoded.dead(e.getMessage());
    }
  }

  private Decoded decode(JsonNode root, String sequence) throws BadRecord {
    JsonNode event = root.get("eventName");
    if (event == null || !event.isTextual()) {
      throw new BadRecord("missing eventName");
    }
    String name = event.textValue();
    if (!name.equals("INSERT") && !name.equals("MODIFY") && !name.equals("REMOVE")) {
      throw new BadRecord("unknown eventName \"" + name + "\" (expected INSERT, MODIFY or REMOVE)");
    }
    JsonNode table = root.get("tableName");
    if (table != null && table.isTextual() && !table.textValue().equals(schema.table())) {
      return new Decoded(Outcome.OTHER_TABLE, List.of(), -1, null);
    }
    JsonNode ddb = root.get("dynamodb");
    if (ddb == null || !ddb.isObject()) {
      throw new BadRecord("missing dynamodb");
    }
    List<KeyValue> itemKey = itemKey(ddb.get("Keys"));
    long micros = creationMicros(ddb);
    Version version = new Version(micros, sequence);
    boolean needsNew = !name.equals("REMOVE");
    boolean needsOld = !name.equals("INSERT");
    IndexEntry before = needsOld ? entry(ddb, "OldImage", name, itemKey) : null;
    IndexEntry after = needsNew ? entry(ddb, "NewImage", name, itemKey) : null;

    if (before == null && after == null) {
      return new Decoded(Outcome.NOT_IN_INDEX, List.of(), micros, null);
    }
    if (before == null) {
      return new Decoded(Outcome.ADDED, List.of(change(after.group(), itemKey, version, null, after)), micros, null);
    }
    if (after == null) {
      return new Decoded(Outcome.REMOVED, List.of(change(before.group(), itemKey, version, before, null)), micros, null);
    }
    if (!before.group().equals(after.group())) {
      return new Decoded(
          Outcome.MOVED_GROUP,
          List.of(change(before.group(), itemKey, version, before, null),
              change(after.group(), itemKey, version, null, after)),
          micros, null);
    }
    if (before.keys().equals(after.keys())) {
      return new Decoded(Outcome.UNCHANGED, List.of(), micros, null);
    }
    return new Decoded(
        Outcome.MOVED_IN_GROUP, List.of(change(after.group(), itemKey, version, before, after)), micros, null);
  }

  private static IndexChange change(
      KeyValue group, List<KeyValue> itemKey, Version version, IndexEntry removed, IndexEntry added) {
    return new IndexChange(
        group, itemKey, version, removed == null ? null : removed.keys(), added == null ? null : added.keys());
  }

  /** The table key from {@code dynamodb.Keys}, in {@link KeySchema#primaryKeyNames()} order. */
  private List<KeyValue> itemKey(JsonNode keys) throws BadRecord {
    if (keys == null || !keys.isObject()) {
      throw new BadRecord("missing dynamodb.Keys");
    }
    Map<String, KeyType> types = schema.startKeyAttributes();
    List<KeyValue> out = new ArrayList<>(2);
    for (String n : schema.primaryKeyNames()) {
      JsonNode v = keys.get(n);
      if (v == null) {
        throw new BadRecord("dynamodb.Keys lacks the table key attribute " + n);
      }
      try {
        out.add(ItemKeys.keyValue(n, types.get(n), AttributeValueJson.fromJson(v)));
      } catch (IllegalArgumentException e) {
        throw new BadRecord("dynamodb.Keys: " + e.getMessage());
      }
    }
    return out;
  }

  private static long creationMicros(JsonNode ddb) throws BadRecord {
    JsonNode t = ddb.get("ApproximateCreationDateTime");
    if (t == null || !t.isIntegralNumber() || !t.canConvertToLong() || t.longValue() < 0) {
      throw new BadRecord("missing or invalid dynamodb.ApproximateCreationDateTime (expected a whole number)");
    }
    JsonNode precision = ddb.get("ApproximateCreationDateTimePrecision");
    String p = precision == null || precision.isNull() ? "MILLISECOND" : precision.asText();
    switch (p) {
      case "MILLISECOND":
        if (t.longValue() > Long.MAX_VALUE / 1000) {
          throw new BadRecord("dynamodb.ApproximateCreationDateTime is out of range");
        }
        return t.longValue() * 1000;
      case "MICROSECOND":
        return t.longValue();
      default:
        throw new BadRecord("unknown dynamodb.ApproximateCreationDateTimePrecision \"" + p + "\"");
    }
  }

  /** The index entry an image holds, null when the GSI would not hold it; throws when the image is unusable. */
  private IndexEntry entry(JsonNode ddb, String field, String event, List<KeyValue> itemKey) throws BadRecord {
    JsonNode image = ddb.get(field);
    if (image == null || !image.isObject()) {
      throw new BadRecord(event + " record without dynamodb." + field
          + " (the stream must carry new and old images: NEW_AND_OLD_IMAGES)");
    }
    Map<String, AttributeValue> item;
    try {
      item = AttributeValueJson.itemFromJson(image);
    } catch (IllegalArgumentException e) {
      throw new BadRecord("dynamodb." + field + ": " + e.getMessage());
    }
    Map<String, KeyType> types = schema.startKeyAttributes();
    List<String> pk = schema.primaryKeyNames();
    for (int i = 0; i < pk.size(); i++) {
      AttributeValue v = item.get(pk.get(i));
      KeyValue k;
      try {
        k = v == null ? null : ItemKeys.keyValue(pk.get(i), types.get(pk.get(i)), v);
      } catch (IllegalArgumentException e) {
        throw new BadRecord("dynamodb." + field + ": " + e.getMessage());
      }
      if (!itemKey.get(i).equals(k)) {
        throw new BadRecord("dynamodb." + field + " holds a different " + pk.get(i) + " than dynamodb.Keys");
      }
    }
    ItemKeys.Extraction x = ItemKeys.extract(schema, item);
    if (x.rejection() != null) {
      throw new BadRecord("dynamodb." + field + ": " + x.rejection());
    }
    return x.entry();
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "unreadable";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** A record that cannot be applied; the message is the dead letter's reason. */
  private static final class BadRecord extends Exception {
    private static final long serialVersionUID = 1L;

    BadRecord(String message) {
      super(message, null, false, false);
    }
  }
}
