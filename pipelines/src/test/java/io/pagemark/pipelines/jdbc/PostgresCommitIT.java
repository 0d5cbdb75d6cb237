package io.pagemark.pipelines.jdbc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;

import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.PostgresExtension;
import io.pagemark.testing.PostgresServer;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * {@code pagemark commit} onto a PostgreSQL index: the tricky table is backfilled, then changed in DynamoDB (sort keys
 * moved into and out of runs of equal keys, items deleted, added, moved to another group) while the same changes go
 * to a WAL, some twice; after the commit every page of every group, in both orders, is DynamoDB's own page, and the
 * same segments committed again change no group.
 */
@ExtendWith({DynamoDbLocalExtension.class, PostgresExtension.class})
class PostgresCommitIT {
  static final String TABLE = "commitPostgres";
  static final String GSI = "byNumber";

  @Test
  void aCommitKeepsEveryPageDynamoDbsPageAndAReplayChangesNothing(DynamoDbLocal local, PostgresServer postgres,
      @TempDir Path dir) throws Exception {
    String url = postgres.createDatabase("commit_it") + "&currentSchema=it_commit";
    Random random = new Random(23);
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      Map<String, Map<String, AttributeValue>> items = new LinkedHashMap<>();
      int big = 0;
      for (Map<String, AttributeValue> item : TrickyTable.items(29)) {
        // the big group's 8 KB items test the scan, not the commit: a few of them are enough here
        if (item.containsKey("PK2") && item.get("PK2").s().equals("big") && big++ >= 40) {
          continue;
        }
        items.put(item.get("PK").s() + "|" + item.get("SK").s(), item);
      }
      SampleComments.load(client, TABLE, new ArrayList<>(items.values()), 2, null);
      BackfillIT.Result r = BackfillIT.backfill(local, "--table=" + TABLE, "--gsi=" + GSI, "--jdbcUrl=" + url,
          "--deadLetterOutput=" + dir.resolve("dead"));
      assertThat(r.err(), r.code(), is(0));

      KeySchema schema = KeySchema.describe(client, TABLE, GSI);
      Changes changes = new Changes(schema);
      List<String> indexed = items.keySet().stream()
          .filter(k -> items.get(k).containsKey("PK2") && items.get(k).containsKey("NUM")).toList();
      List<String> picked = new ArrayList<>(indexed);
      java.util.Collections.shuffle(picked, random);
      for (int i = 0; i < 80; i++) {
        String key = picked.get(i);
        Map<String, AttributeValue> before = items.get(key);
        Map<String, AttributeValue> after = new HashMap<>(before);
        if (i < 50) { // a new sort key, often into or out of a run of equal ones
          String num;
          do {
            num = TrickyTable.TRICKY_NUMBERS.get(random.nextInt(5));
          } while (KeyValue.ofNumber(num).equals(KeyValue.ofNumber(before.get("NUM").n())));
          after.put("NUM", AttributeValue.fromN(num));
        } else if (i < 65) {
          after = null; // deleted
        } else { // moved to another group, where it may tie
          after.put("PK2", AttributeValue.fromS(before.get("PK2").s().equals("ties") ? "a/b" : "ties"));
        }
        changes.record(before, after);
        if (after == null) {
          client.deleteItem(b -> b.tableName(TABLE).key(Map.of("PK", before.get("PK"), "SK", before.get("SK"))));
          items.remove(key);
        } else {
          Map<String, AttributeValue> put = after;
          client.putItem(b -> b.tableName(TABLE).item(put));
          items.put(key, after);
        }
      }
      for (int i = 0; i < 20; i++) { // new items, in new and existing groups
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("PK", AttributeValue.fromS("new-" + i));
        item.put("SK", AttributeValue.fromS("s"));
        item.put("PK2", AttributeValue.fromS(i < 15 ? "ties" : "brand new group"));
        item.put("NUM", AttributeValue.fromN(TrickyTable.TRICKY_NUMBERS.get(random.nextInt(4))));
        changes.record(null, item);
        client.putItem(b -> b.tableName(TABLE).item(item));
        items.put("new-" + i + "|s", item);
      }
      Path walRoot = dir.resolve("stream");
      List<Path> segments = changes.writeSegments(walRoot, 2); // every change twice (a duplicated delivery)

      String index = url;
      BackfillIT.Result commit = BackfillIT.cli("commit", "--index=" + index, "--wal=" + walRoot,
          "--dynamoEndpoint=" + local.endpoint());
      assertThat(commit.err(), commit.code(), is(0));
      assertThat(commit.out(), containsString("changes (" + changes.count() + " applied, " + changes.count()
          + " already in the index)"));
      try (Stream<Path> left = Files.walk(walRoot)) {
        assertThat("applied segments are gone", left.filter(p -> p.toString().endsWith(".wal")).count(), is(0L));
      }
      assertEveryPageIsDynamoDbs(client, index, new ArrayList<>(items.values()));

      // the same segments again (a stream that replays): nothing changes
      changes.writeSegments(walRoot, 1);
      BackfillIT.Result replay = BackfillIT.cli("commit", "--index=" + index, "--wal=" + walRoot);
      assertThat(replay.err(), replay.code(), is(0));
      assertThat(replay.out(), containsString("(0 applied, " + changes.count() + " already in the index), 0 groups"
          + " changed"));
      BackfillIT.Result nothing = BackfillIT.cli("commit", "--index=" + index, "--wal=" + walRoot);
      assertThat(nothing.out(), containsString("nothing to commit"));
      assertCounts(index, new ArrayList<>(items.values()));
      assertThat(segments.size(), greaterThan(10));
    }
  }

  private static void assertCounts(String spec, List<Map<String, AttributeValue>> items) throws Exception {
    Map<String, Integer> expected = TrickyTable.expectedCounts(items, "NUM");
    try (Index index = Indexes.open(spec)) {
      assertThat(index.groups().size(), is(expected.size()));
      for (Map.Entry<String, Integer> g : expected.entrySet()) {
        try (GroupPages pages = index.group(g.getKey())) {
          assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
        }
      }
    }
  }

  private static void assertEveryPageIsDynamoDbs(DynamoDbClient client, String spec,
      List<Map<String, AttributeValue>> items) throws Exception {
    Map<String, Integer> expected = TrickyTable.expectedCounts(items, "NUM");
    try (Index index = Indexes.open(spec)) {
      assertThat(index.groups().size(), is(expected.size()));
      for (Map.Entry<String, Integer> g : expected.entrySet()) {
        try (GroupPages pages = index.group(g.getKey())) {
          assertThat("count of group " + g.getKey(), pages.count(), is((long) g.getValue()));
          for (boolean forward : new boolean[] {true, false}) {
            List<List<String>> walk = KeyPages.walk(client, TABLE, GSI, g.getKey(), 4, forward);
            assertThat(pages.pages(4), is((long) walk.size()));
            for (int n = 1; n <= walk.size(); n++) {
              assertThat("group " + g.getKey() + " page " + n + (forward ? " asc" : " desc"),
                  KeyPages.page(client, TABLE, GSI, pages.pageStart(n, 4, forward ? Order.ASC : Order.DESC)),
                  equalTo(walk.get(n - 1)));
            }
          }
        }
      }
    }
  }

  /** The index changes of item writes, as the stream would decode them, by group. */
  private static final class Changes {
    private final KeySchema schema;
    private final Map<KeyValue, List<IndexChange>> byGroup = new LinkedHashMap<>();
    private long micros = System.currentTimeMillis() * 1000;
    private int count;

    Changes(KeySchema schema) {
      this.schema = schema;
    }

    void record(Map<String, AttributeValue> before, Map<String, AttributeValue> after) {
      Map<String, AttributeValue> any = before != null ? before : after;
      List<KeyValue> item = List.of(KeyValue.ofString(any.get("PK").s()), KeyValue.ofString(any.get("SK").s()));
      Version v = new Version(micros++, "");
      KeyValue from = before == null ? null : KeyValue.ofString(before.get("PK2").s());
      KeyValue to = after == null ? null : KeyValue.ofString(after.get("PK2").s());
      if (from != null && from.equals(to)) {
        add(new IndexChange(from, item, v, entry(before), entry(after)));
        return;
      }
      if (from != null) {
        add(new IndexChange(from, item, v, entry(before), null));
      }
      if (to != null) {
        add(new IndexChange(to, item, v, null, entry(after)));
      }
    }

    private void add(IndexChange c) {
      byGroup.computeIfAbsent(c.group(), g -> new ArrayList<>()).add(c);
      count++;
    }

    int count() {
      return count;
    }

    private List<KeyValue> entry(Map<String, AttributeValue> item) {
      List<KeyValue> keys = new ArrayList<>();
      for (KeyAttribute a : schema.storedAttributes()) {
        keys.add(ItemKeys.keyValue(a.name(), a.type(), item.get(a.name())));
      }
      return keys;
    }

    /** Writes each group's changes as a segment, {@code copies} times; returns the segments. */
    List<Path> writeSegments(Path walRoot, int copies) throws Exception {
      Wal wal = new Wal(walRoot);
      List<Path> written = new ArrayList<>();
      for (Map.Entry<KeyValue, List<IndexChange>> e : byGroup.entrySet()) {
        for (int i = 0; i < copies; i++) {
          String name = Wal.newSegmentName();
          new WalSegment(schema.groupAttribute(), e.getKey(), schema.storedAttributes(), e.getValue())
              .write(wal.groupDir(e.getKey()), name);
          written.add(wal.groupDir(e.getKey()).resolve(name));
        }
      }
      return written;
    }
  }
}
