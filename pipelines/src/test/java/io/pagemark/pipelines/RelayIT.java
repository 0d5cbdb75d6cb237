package io.pagemark.pipelines;

import io.pagemark.pipelines.relay.Relay;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.Kinesalite;
import io.pagemark.testing.KinesaliteExtension;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.change.ChangeDecoder;
import io.pagemark.change.ChangeDecoder.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.kinesis.model.Record;

/** The relay: DynamoDB Local's own stream into kinesalite, in the format of Kinesis Data Streams for DynamoDB. */
@ExtendWith({DynamoDbLocalExtension.class, KinesaliteExtension.class})
class RelayIT {
  @Test
  void everyWriteArrivesOnceInTheKinesisFormatWithItsItemsRecordsInOneShardInOrder(DynamoDbLocal local,
      Kinesalite kinesalite) throws Exception {
    String table = "relayed";
    kinesalite.createStream(table, 3);
    Map<StreamTable.Kind, Integer> kinds;
    try (DynamoDbClient c = local.client()) {
      StreamTable.create(c, table);
    }
    try (DynamoDbClient c = local.client();
        Relay relay = Relay.start(local.connection(), table, new io.pagemark.transforms.source.KinesisConnection(kinesalite.endpoint(), kinesalite.region()), table,
            new Relay.Options(0.1, 20, 7))) {
      kinds = StreamTable.randomWrites(c, table, 400, 120, 3);
      relay.awaitIdle(Duration.ofSeconds(60));
      List<Record> records = readAll(kinesalite, table);
      assertThat((long) records.size(), is(relay.put()));
      assertThat(relay.duplicated(), greaterThan(30L));
      assertThat(relay.read() + relay.duplicated(), is(relay.put()));

      KeySchema schema = KeySchema.describe(c, table, StreamTable.GSI);
      ChangeDecoder decoder = new ChangeDecoder(schema);
      ObjectMapper json = new ObjectMapper();
      Map<String, String> shardOfItem = new HashMap<>();
      Map<String, Long> lastTime = new HashMap<>();
      Map<String, JsonNode> seen = new HashMap<>();
      Map<Outcome, Integer> outcomes = new HashMap<>();
      for (Record r : records) {
        JsonNode node = json.readTree(r.data().asByteArray());
        String id = node.get("eventID").asText();
        assertThat(node.get("eventSource").asText(), is("aws:dynamodb"));
        assertThat(node.get("tableName").asText(), is(table));
        assertThat(node.get("dynamodb").get("ApproximateCreationDateTimePrecision").asText(), is("MICROSECOND"));
        String item = node.get("dynamodb").get("Keys").get("PK").get("S").asText();
        shardOfItem.putIfAbsent(item, r.partitionKey());
        assertThat(r.partitionKey(), is(shardOfItem.get(item)));
        long t = node.get("dynamodb").get("ApproximateCreationDateTime").asLong();
        if (seen.containsKey(id)) {
          assertThat("a duplicate is an exact copy", node, equalTo(seen.get(id)));
          continue;
        }
        seen.put(id, node);
        assertThat("creation times of one item increase", t > lastTime.getOrDefault(item, 0L), is(true));
        lastTime.put(item, t);
        outcomes.merge(decoder.decode(r.data().asByteArray(), r.sequenceNumber()).outcome(), 1, Integer::sum);
      }
      assertThat((long) seen.size(), is(relay.read()));
      assertThat(outcomes.get(Outcome.DEAD_LETTER), is((Integer) null));
      assertThat(outcomes.get(Outcome.MOVED_GROUP), greaterThan(20));
      assertThat(outcomes.get(Outcome.MOVED_IN_GROUP), greaterThan(20));
      assertThat(outcomes.get(Outcome.UNCHANGED), greaterThan(20));
      assertThat(outcomes.get(Outcome.NOT_IN_INDEX), greaterThan(5));
      assertThat(outcomes.get(Outcome.REMOVED), greaterThan(kinds.get(StreamTable.Kind.DELETE) / 2));
    }
  }

  /** Every record of every shard, oldest first per shard. */
  static List<Record> readAll(Kinesalite k, String stream) {
    return k.records(stream);
  }

}
