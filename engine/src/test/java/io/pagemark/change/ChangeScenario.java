package io.pagemark.change;

import io.pagemark.change.Records;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * A random history of writes to the {@link Records#SCHEMA} table as change records (inserts, group and sort key
 * changes, other updates, items leaving and entering the sparse index, deletes), with the table's state after any
 * prefix: the reference the commit is checked against.
 */
public final class ChangeScenario {
  public static final List<String> GROUPS = List.of("a", "b", "c", "../x", "\u00e9", "e\u0301", "hot");
  public final List<ObjectNode> records = new ArrayList<>();
  final List<Map<String, Map<String, AttributeValue>>> states = new ArrayList<>();
  final long startMillis;

  public ChangeScenario(long seed, int count, int itemSpace, long startMillis) {
    this.startMillis = startMillis;
    Random r = new Random(seed);
    Map<String, Map<String, AttributeValue>> live = new HashMap<>();
    states.add(Map.copyOf(live));
    for (int i = 0; i < count; i++) {
      String pk = "item-" + r.nextInt(itemSpace);
      Map<String, AttributeValue> before = live.get(pk);
      Map<String, AttributeValue> after;
      int dice = r.nextInt(100);
      if (before == null) {
        after = Records.item(pk, group(r), sort(r));
        if (dice < 8) {
          after.remove(r.nextBoolean() ? "PK2" : "SK2");
        }
      } else if (dice < 20) {
        after = new HashMap<>(before);
        after.put("PK2", AttributeValue.fromS(group(r)));
        after.putIfAbsent("SK2", AttributeValue.fromS(sort(r)));
      } else if (dice < 40) {
        after = new HashMap<>(before);
        after.put("SK2", AttributeValue.fromS(sort(r)));
        after.putIfAbsent("PK2", AttributeValue.fromS(group(r)));
      } else if (dice < 50) {
        after = new HashMap<>(before);
        after.put("text", AttributeValue.fromS("edit " + i));
      } else if (dice < 58) {
        after = new HashMap<>(before);
        after.remove(r.nextBoolean() ? "PK2" : "SK2");
      } else if (dice < 78) {
        after = null;
      } else {
        after = Records.item(pk, group(r), sort(r));
      }
      String event = before == null ? "INSERT" : after == null ? "REMOVE" : "MODIFY";
      records.add(Records.record(event, startMillis + i * 10L, before, after));
      if (after == null) {
        live.remove(pk);
      } else {
        live.put(pk, after);
      }
      states.add(Map.copyOf(live));
    }
  }

  private static String group(Random r) {
    return r.nextInt(3) == 0 ? "hot" : GROUPS.get(r.nextInt(GROUPS.size()));
  }

  private static String sort(Random r) {
    return "s" + r.nextInt(12);
  }

  /** Creation time of record {@code i}, in milliseconds. */
  public long millis(int i) {
    return startMillis + i * 10L;
  }

  /** The index's entries per group after the first {@code n} records. */
  public Map<KeyValue, List<IndexEntry>> entriesAfter(int n) {
    Map<KeyValue, List<IndexEntry>> m = new TreeMap<>();
    GROUPS.forEach(g -> m.put(KeyValue.ofString(g), new ArrayList<>()));
    for (Map<String, AttributeValue> item : states.get(n).values()) {
      if (item.containsKey("PK2") && item.containsKey("SK2")) {
        KeyValue g = KeyValue.ofString(item.get("PK2").s());
        m.get(g).add(new IndexEntry(g, List.of(KeyValue.ofString(item.get("SK2").s()),
            KeyValue.ofString(item.get("PK").s()))));
      }
    }
    return m;
  }

  /** The index changes of records {@code [from, to)}, as the stream derives them. */
  public List<IndexChange> changes(int from, int to) {
    ChangeDecoder decoder = new ChangeDecoder(Records.SCHEMA);
    List<IndexChange> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      ChangeDecoder.Decoded d = decoder.decode(Records.bytes(records.get(i)), Integer.toString(1000 + i));
      if (d.outcome() == ChangeDecoder.Outcome.DEAD_LETTER) {
        throw new AssertionError(d.deadLetterReason());
      }
      out.addAll(d.changes());
    }
    return out;
  }

  /**
   * Appends changes to the WAL as the stream would, but shuffled, with a fraction duplicated, spread over a few
   * segments per group.
   */
  public static void appendShuffled(Path root, List<IndexChange> changes, double duplicates, Random r) throws IOException {
    List<IndexChange> all = new ArrayList<>(changes);
    for (IndexChange c : changes) {
      if (r.nextDouble() < duplicates) {
        all.add(c);
      }
    }
    Collections.shuffle(all, r);
    Map<KeyValue, List<IndexChange>> byGroup = new TreeMap<>();
    all.forEach(c -> byGroup.computeIfAbsent(c.group(), g -> new ArrayList<>()).add(c));
    Wal wal = new Wal(root);
    for (Map.Entry<KeyValue, List<IndexChange>> e : byGroup.entrySet()) {
      List<IndexChange> list = e.getValue();
      int segments = 1 + r.nextInt(3);
      for (int s = 0; s < segments; s++) {
        List<IndexChange> part = list.subList(list.size() * s / segments, list.size() * (s + 1) / segments);
        if (!part.isEmpty()) {
          new WalSegment("PK2", e.getKey(), Records.SCHEMA.storedAttributes(), part)
              .write(wal.groupDir(e.getKey()), Wal.newSegmentName());
        }
      }
    }
  }
}
