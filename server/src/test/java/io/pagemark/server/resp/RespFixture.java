package io.pagemark.server.resp;

import io.pagemark.commit.TestIndex;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Test fixture: a file index of a comments-like table (group PK2, sort key SK, table key PK) with runs of equal sort
 * keys put in a stand-in for DynamoDB's order ({@link TestIndex#FAKE_DYNAMO}), tricky strings and hostile group keys,
 * and the order a Query returns every group in, worked out from the entries alone.
 */
final class RespFixture {
  static final KeySchema SCHEMA = new KeySchema("comments", "byProduct", "PK2", KeyType.S,
      List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
          new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY)), "PK", null);
  static final List<String> SORT_KEYS = List.of("a", "e\u0301", "\u00e9", "\u4e2d", "\uE000", "\uFFFD",
      "\uD83D\uDE00", "quote\"back\\slash", "tab\tnew\nline", "sep\u2028para\u2029", "ctl\u0001", "Z", "~");
  static final List<String> HOSTILE = List.of("../x", "a b", "new\nline", "nul\u0000byte", "\u00e9", "e\u0301",
      "k".repeat(300));

  final Path root;
  final Map<KeyValue, List<IndexEntry>> groups = new LinkedHashMap<>();

  RespFixture(Path root) {
    this.root = root;
  }

  /** Adds a group of {@code n} items whose sort keys repeat (so that most are in runs of equal sort keys). */
  RespFixture group(String key, int n, long seed) {
    Random r = new Random(seed);
    List<IndexEntry> entries = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String sk = SORT_KEYS.get(r.nextInt(SORT_KEYS.size())) + (r.nextInt(4) == 0 ? "" : "-" + r.nextInt(n / 4 + 1));
      entries.add(new IndexEntry(KeyValue.ofString(key),
          List.of(KeyValue.ofString(sk), KeyValue.ofString(String.format("%s-item-%05d", key.hashCode(), i)))));
    }
    groups.put(KeyValue.ofString(key), entries);
    return this;
  }

  /** Adds a group of {@code n} items with unique, increasing sort keys. */
  RespFixture plainGroup(String key, int n) {
    List<IndexEntry> entries = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      entries.add(new IndexEntry(KeyValue.ofString(key), List.of(KeyValue.ofString(String.format("t%08d", i)),
          KeyValue.ofString(String.format("comment-%08d", i)))));
    }
    groups.put(KeyValue.ofString(key), entries);
    return this;
  }

  void publish(String buildId) throws IOException {
    TestIndex.writeBuild(root, buildId, System.currentTimeMillis(), SCHEMA, groups, TestIndex.FAKE_DYNAMO);
  }

  /** The members of a group in the order a Query reads it, ascending or descending. */
  List<String> expected(String key, boolean ascending) {
    List<IndexEntry> sorted = new ArrayList<>(groups.get(KeyValue.ofString(key)));
    sorted.sort(IndexEntry.ORDER);
    List<List<IndexEntry>> runs = new ArrayList<>();
    for (IndexEntry e : sorted) {
      if (runs.isEmpty() || runs.get(runs.size() - 1).get(0).sortKey().compareTo(e.sortKey()) != 0) {
        runs.add(new ArrayList<>());
      }
      runs.get(runs.size() - 1).add(e);
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      List<IndexEntry> run = runs.get(ascending ? i : runs.size() - 1 - i);
      if (run.size() == 1) {
        out.add(member(run.get(0)));
        continue;
      }
      TieOrder.Resolved order = TestIndex.FAKE_DYNAMO.resolve(run.get(0).group(), run.get(0).sortKey(), run);
      for (int k : ascending ? order.ascending() : order.descending()) {
        out.add(member(run.get(k)));
      }
    }
    return out;
  }

  /** An entry's exclusive start key as {@code pagemark lookup} prints it. */
  static String member(IndexEntry e) {
    Map<String, KeyValue> key = new LinkedHashMap<>();
    key.put("PK2", e.group());
    key.put("SK", e.keys().get(0));
    key.put("PK", e.keys().get(1));
    return SortedSetCommands.json(key);
  }
}
