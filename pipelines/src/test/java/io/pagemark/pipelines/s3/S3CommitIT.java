package io.pagemark.pipelines.s3;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.S3Proxy;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.S3ProxyExtension;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A commit onto an index in S3 with the WAL on local disk: items added (into runs of equal sort keys, into tricky
 * strings, into a new group) and removed in DynamoDB, their changes in WAL segments, {@code pagemark commit
 * --index=s3://... --wal=DIR}; then every page of every group in both orders equals DynamoDB's walk.
 */
@ExtendWith({DynamoDbLocalExtension.class, S3ProxyExtension.class})
class S3CommitIT {
  static final String TABLE = "commitS3";

  @Test
  void everyPageEqualsDynamoDbsWalkAfterACommit(DynamoDbLocal local, S3Proxy s3, @TempDir Path walRoot)
      throws Exception {
    String bucket = s3.createBucket("commit");
    String output = "s3://" + bucket + "/index";
    String endpoints = "--s3Endpoint=" + s3.endpoint();
    List<Map<String, AttributeValue>> items = TrickyTable.items(19);
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      SampleComments.load(client, TABLE, items, 2, null);
      BackfillIT.Result b = BackfillIT.cli("backfill", "--table=" + TABLE, "--gsi=" + TrickyTable.BY_STRING,
          "--output=" + output, endpoints, "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=0",
          "--segments=2");
      assertThat(b.err(), b.code(), is(0));
      String base;
      try (Index index = Indexes.open(s3.spec(bucket, "index"))) {
        base = index.buildId();
      }

      KeySchema schema = KeySchema.describe(client, TABLE, TrickyTable.BY_STRING);
      Map<KeyValue, List<IndexChange>> changes = new LinkedHashMap<>();
      Random r = new Random(5);
      long micros = System.currentTimeMillis() * 1000;
      int seq = 0;
      List<Map<String, AttributeValue>> added = new ArrayList<>();
      for (int i = 0; i < 40; i++) { // new items: into the runs of equal sort keys, the tricky strings, a new group
        String group = List.of("ties", "ties", "utf", "fresh").get(i % 4);
        String sk = group.equals("ties") ? "same-" + r.nextInt(4) : group.equals("utf") ? "\u00e9" + i : "f" + i;
        Map<String, AttributeValue> item = new HashMap<>(Map.of("PK", AttributeValue.fromS("new-" + i),
            "SK", AttributeValue.fromS(sk), "PK2", AttributeValue.fromS(group)));
        added.add(item);
        changes.computeIfAbsent(KeyValue.ofString(group), g -> new ArrayList<>()).add(new IndexChange(
            KeyValue.ofString(group), itemKey(item), new Version(micros + i, Integer.toString(++seq)), null,
            entry(schema, item)));
      }
      SampleComments.load(client, TABLE, added, 2, null);
      List<Map<String, AttributeValue>> removed = new ArrayList<>();
      for (Map<String, AttributeValue> item : items) { // about a third of the items of "big" and "ties" go
        String g = item.containsKey("PK2") ? item.get("PK2").s() : "";
        if ((g.equals("big") || g.equals("ties")) && r.nextInt(3) == 0) {
          removed.add(item);
          client.deleteItem(d -> d.tableName(TABLE).key(Map.of("PK", item.get("PK"), "SK", item.get("SK"))));
          changes.computeIfAbsent(KeyValue.ofString(g), x -> new ArrayList<>()).add(new IndexChange(
              KeyValue.ofString(g), itemKey(item), new Version(micros + 1000, Integer.toString(++seq)),
              entry(schema, item), null));
        }
      }
      Wal wal = new Wal(walRoot);
      for (Map.Entry<KeyValue, List<IndexChange>> c : changes.entrySet()) {
        new WalSegment(schema.groupAttribute(), c.getKey(), schema.storedAttributes(), c.getValue())
            .write(wal.groupDir(c.getKey()), Wal.newSegmentName());
      }

      long t = System.nanoTime();
      BackfillIT.Result commit = BackfillIT.cli("commit", "--index=" + output, "--wal=" + walRoot, endpoints,
          "--dynamoEndpoint=" + local.endpoint());
      System.err.printf("S3CommitIT: commit onto S3 took %.1f s%n", (System.nanoTime() - t) / 1e9);
      assertThat(commit.err(), commit.code(), is(0));
      assertThat(commit.out(), containsString("on " + base + ": " + changes.size() + " segments, " + (40
          + removed.size()) + " changes (" + (40 + removed.size()) + " applied"));
      assertThat("the WAL's applied segments are gone", wal.pendingGroupDirs(), empty());

      List<Map<String, AttributeValue>> now = new ArrayList<>(items);
      now.removeAll(removed);
      now.addAll(added);
      Map<String, Integer> counts = TrickyTable.expectedCounts(now, "SK");
      try (Index index = Indexes.open(s3.spec(bucket, "index"))) {
        assertThat(index.buildId(), not(equalTo(base)));
        long pages = EveryPage.assertEqualsDynamoDb(index, client, TABLE, TrickyTable.BY_STRING, counts, 6);
        assertThat(pages, greaterThan(100L));
        for (String g : counts.keySet()) { // rewritten groups are the new build's; the others' objects were copied
          try (io.pagemark.lookup.GroupPages p = index.group(g)) {
            assertThat("build of group " + g, p.buildId(),
                equalTo(changes.containsKey(KeyValue.ofString(g)) ? index.buildId() : base));
          }
        }
      }
      BackfillIT.Result again = BackfillIT.cli("commit", "--index=" + output, "--wal=" + walRoot, endpoints);
      assertThat(again.err(), again.code(), is(0));
      assertThat(again.out(), containsString("nothing to commit"));
    }
  }

  private static List<KeyValue> itemKey(Map<String, AttributeValue> item) {
    return List.of(KeyValue.ofString(item.get("PK").s()), KeyValue.ofString(item.get("SK").s()));
  }

  /** The entry the index stores for an item: its stored attributes' values, the sort key first. */
  private static List<KeyValue> entry(KeySchema schema, Map<String, AttributeValue> item) {
    List<KeyValue> keys = new ArrayList<>();
    for (KeyAttribute a : schema.storedAttributes()) {
      keys.add(ItemKeys.keyValue(a.name(), a.type(), item.get(a.name())));
    }
    return keys;
  }
}
