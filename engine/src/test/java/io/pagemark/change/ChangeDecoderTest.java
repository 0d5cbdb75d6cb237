package io.pagemark.change;

import static io.pagemark.change.Records.SCHEMA;
import static io.pagemark.change.Records.bytes;
import static io.pagemark.change.Records.item;
import static io.pagemark.change.Records.record;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.change.ChangeDecoder.Decoded;
import io.pagemark.change.ChangeDecoder.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class ChangeDecoderTest {
  final ChangeDecoder decoder = new ChangeDecoder(SCHEMA);

  static KeyValue s(String v) {
    return KeyValue.ofString(v);
  }

  Decoded decode(ObjectNode r) {
    return decoder.decode(bytes(r), "42");
  }

  @Test
  void insertAddsTheEntry() {
    Decoded d = decode(record("INSERT", 1000, null, item("i1", "g", "s1", "text", "hello")));
    assertThat(d.outcome(), is(Outcome.ADDED));
    assertThat(d.creationMicros(), is(1_000_000L));
    assertThat(d.changes(), equalTo(List.of(
        new IndexChange(s("g"), List.of(s("i1")), new Version(1_000_000, "42"), null, List.of(s("s1"), s("i1"))))));
  }

  @Test
  void removeRemovesTheEntry() {
    Decoded d = decode(record("REMOVE", 1000, item("i1", "g", "s1"), null));
    assertThat(d.outcome(), is(Outcome.REMOVED));
    assertThat(d.changes(), equalTo(List.of(
        new IndexChange(s("g"), List.of(s("i1")), new Version(1_000_000, "42"), List.of(s("s1"), s("i1")), null))));
  }

  @Test
  void aNewGroupKeyRemovesFromTheOldGroupAndAddsToTheNew() {
    Decoded d = decode(record("MODIFY", 5, item("i1", "a", "s1"), item("i1", "b", "s2")));
    assertThat(d.outcome(), is(Outcome.MOVED_GROUP));
    Version v = new Version(5000, "42");
    assertThat(d.changes(), equalTo(List.of(
        new IndexChange(s("a"), List.of(s("i1")), v, List.of(s("s1"), s("i1")), null),
        new IndexChange(s("b"), List.of(s("i1")), v, null, List.of(s("s2"), s("i1"))))));
  }

  @Test
  void aNewSortKeyMovesTheEntryWithinItsGroup() {
    Decoded d = decode(record("MODIFY", 5, item("i1", "a", "s1"), item("i1", "a", "s0")));
    assertThat(d.outcome(), is(Outcome.MOVED_IN_GROUP));
    assertThat(d.changes(), equalTo(List.of(new IndexChange(
        s("a"), List.of(s("i1")), new Version(5000, "42"), List.of(s("s1"), s("i1")), List.of(s("s0"), s("i1"))))));
  }

  @Test
  void otherAttributesChangeNothing() {
    Decoded d = decode(record("MODIFY", 5, item("i1", "a", "s1", "text", "x"), item("i1", "a", "s1", "text", "y")));
    assertThat(d.outcome(), is(Outcome.UNCHANGED));
    assertThat(d.changes(), empty());
  }

  @Test
  void itemsEnteringOrLeavingASparseIndexAreAddedOrRemoved() {
    Decoded in = decode(record("MODIFY", 5, item("i1", "a", null), item("i1", "a", "s1")));
    assertThat(in.outcome(), is(Outcome.ADDED));
    assertThat(in.changes().get(0).removed(), nullValue());
    Decoded out = decode(record("MODIFY", 5, item("i1", "a", "s1"), item("i1", null, "s1")));
    assertThat(out.outcome(), is(Outcome.REMOVED));
    assertThat(out.changes().get(0).added(), nullValue());
  }

  @Test
  void itemsTheIndexDoesNotHoldAreIgnored() {
    assertThat(decode(record("INSERT", 5, null, item("i1", null, "s1"))).outcome(), is(Outcome.NOT_IN_INDEX));
    assertThat(decode(record("REMOVE", 5, item("i1", "g", null), null)).outcome(), is(Outcome.NOT_IN_INDEX));
    Decoded d = decode(record("MODIFY", 5, item("i1", null, null), item("i1", "g", null)));
    assertThat(d.outcome(), is(Outcome.NOT_IN_INDEX));
    assertThat(d.changes(), empty());
    // a NULL group key is no group key, as in the backfill
    Map<String, AttributeValue> nullGroup = item("i1", null, "s");
    nullGroup.put("PK2", AttributeValue.fromNul(true));
    assertThat(decode(record("INSERT", 5, null, nullGroup)).outcome(), is(Outcome.NOT_IN_INDEX));
  }

  @Test
  void recordsOfAnotherTableAreIgnored() {
    ObjectNode r = record("INSERT", 5, null, item("i1", "g", "s"));
    r.put("tableName", "other");
    assertThat(decode(r).outcome(), is(Outcome.OTHER_TABLE));
  }

  @Test
  void microsecondPrecisionIsRead() {
    ObjectNode r = record("INSERT", 1_700_000_000_123_456L, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb")).put("ApproximateCreationDateTimePrecision", "MICROSECOND");
    assertThat(decode(r).creationMicros(), is(1_700_000_000_123_456L));
    assertThat(decode(r).changes().get(0).version(), equalTo(new Version(1_700_000_000_123_456L, "42")));
  }

  @Test
  void numbersWrittenDifferentlyAreTheSameKey() {
    KeySchema numeric = new KeySchema("events", "byNum", "G", KeyType.N,
        List.of(new KeyAttribute("R", KeyType.N, KeyAttribute.INDEX_SORT_KEY),
            new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)), "PK", null);
    Map<String, AttributeValue> before = Map.of("PK", AttributeValue.fromS("i"), "G", AttributeValue.fromN("1.0"),
        "R", AttributeValue.fromN("5"));
    Map<String, AttributeValue> after = Map.of("PK", AttributeValue.fromS("i"), "G", AttributeValue.fromN("1"),
        "R", AttributeValue.fromN("5.00"), "x", AttributeValue.fromBool(true));
    Decoded d = new ChangeDecoder(numeric).decode(bytes(record("MODIFY", 1, before, after)), "");
    assertThat(d.outcome(), is(Outcome.UNCHANGED));
  }

  @Test
  void badRecordsAreDeadLettersWithTheReason() {
    assertDead("{\"eventName\":", "not JSON");
    assertDead("[1,2]", "not a JSON object");
    assertDead("", "not a JSON object");
    ObjectNode r = record("INSERT", 5, null, item("i1", "g", "s"));
    r.remove("eventName");
    assertDead(r, "missing eventName");
    assertDead(record("UPSERT", 5, null, item("i1", "g", "s")), "unknown eventName \"UPSERT\"");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb")).remove("Keys");
    assertDead(r, "missing dynamodb.Keys");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb")).putObject("Keys").putObject("id").put("S", "i1");
    assertDead(r, "dynamodb.Keys lacks the table key attribute PK");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb")).putObject("Keys").putObject("PK").put("N", "1");
    assertDead(r, "dynamodb.Keys: attribute PK is of type N, the index expects S");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb")).remove("ApproximateCreationDateTime");
    assertDead(r, "missing or invalid dynamodb.ApproximateCreationDateTime");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb")).put("ApproximateCreationDateTime", "yesterday");
    assertDead(r, "missing or invalid dynamodb.ApproximateCreationDateTime");
    r = record("MODIFY", 5, item("i1", "g", "s"), item("i1", "g", "t"));
    ((ObjectNode) r.get("dynamodb")).remove("OldImage");
    assertDead(r, "MODIFY record without dynamodb.OldImage (the stream must carry new and old images");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb").get("NewImage")).putObject("PK").put("S", "i9");
    assertDead(r, "dynamodb.NewImage holds a different PK than dynamodb.Keys");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb").get("NewImage")).putObject("SK2").put("N", "7");
    assertDead(r, "dynamodb.NewImage: attribute SK2 is of type N, the index expects S");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb").get("NewImage")).putObject("PK2").put("S", "");
    assertDead(r, "dynamodb.NewImage: attribute PK2 is empty");
    r = record("INSERT", 5, null, item("i1", "g", "s"));
    ((ObjectNode) r.get("dynamodb").get("NewImage")).putObject("text").put("Q", "?");
    assertDead(r, "dynamodb.NewImage: attribute text: unknown DynamoDB type \"Q\"");
  }

  private void assertDead(ObjectNode r, String reason) {
    assertDead(r.toString(), reason);
  }

  private void assertDead(String json, String reason) {
    Decoded d = decoder.decode(json.getBytes(StandardCharsets.UTF_8), "1");
    assertThat(json, d.outcome(), is(Outcome.DEAD_LETTER));
    assertThat(d.deadLetterReason(), containsString(reason));
    assertThat(d.changes(), empty());
  }

  @Test
  void versionsOrderByTimeThenSequenceNumber() {
    assertThat(new Version(2, "1").isAfter(new Version(1, "999")), is(true));
    assertThat(new Version(1, "1000").isAfter(new Version(1, "999")), is(true));
    assertThat(new Version(1, "0999").compareTo(new Version(1, "999")), is(0));
    assertThat(new Version(1, "").compareTo(new Version(1, "0")) < 0, is(true));
    assertThat(new Version(1, "5").isAfter(new Version(1, "5")), is(false));
  }
}
