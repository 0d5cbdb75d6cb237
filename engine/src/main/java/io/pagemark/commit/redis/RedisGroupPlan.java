package io.pagemark.commit.redis;

import io.pagemark.change.IndexChange;
import io.pagemark.commit.GroupMerge;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.format.redis.SortedSetMember;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The pure part of applying one batch of a group's changes to its Redis sorted set: which items end where (the
 * same rule as the file commit's {@link GroupMerge}: per item, the newest change the ledger has not seen wins, and
 * every entry any of the item's changes names is dropped first), which runs of equal sort keys that touches, and
 * the members to remove and add so that each touched run is rebuilt with {@link GroupRecords} (tie positions, run
 * length, order known or not) exactly as the backfill and the file commit build runs.
 *
 * <p>Two more rules make Redis safe against out-of-order delivery and backfills: an item whose changes are all stale
 * still loses any member it has at the sort keys those changes name, unless it is the ledger's entry (repair); and
 * after a backfill republished the group ({@link #replay}), items the ledger changed since the backfill began are put
 * back at their ledger entry wherever the backfill's scan left them.
 *
 * <p>Use: {@link #decide}, read the runs of {@link #touchedSortKeys()} (and, after {@link #replay}, of the runs
 * holding {@link #itemsToFind()}), then {@link #rebuild}.
 */
final class RedisGroupPlan {
  /** A member of the live set, with its decoded record. */
  record Member(byte[] bytes, IndexRecord record) {}

  /** Where an item ends: at {@code entry} (null: nowhere); {@code add} false keeps it only if it is already there. */
  private record Placement(List<KeyValue> entry, boolean add) {}

  private final KeySchema schema;
  private final KeyValue group;
  private final Map<List<KeyValue>, Placement> placements = new HashMap<>();
  private final TreeSet<KeyValue> touched = new TreeSet<>();
  private final Map<List<KeyValue>, RedisLedgerEntry> ledgerUpdates = new LinkedHashMap<>();
  private final List<Long> appliedCreationMicros = new ArrayList<>();
  private long applied;
  private long stale;
  private long replayed;
  private final List<byte[]> removes = new ArrayList<>();
  private final List<byte[]> adds = new ArrayList<>();
  private long runsRebuilt;

  RedisGroupPlan(KeySchema schema, KeyValue group) {
    this.schema = schema;
    this.group = group;
  }

  /**
   * Puts the items the ledger changed since a backfill began back at their ledger entries (call before
   * {@link #decide}, whose decisions then take precedence).
   */
  RedisGroupPlan replay(Map<List<KeyValue>, RedisLedgerEntry> ledger, long sinceMicros) {
    for (Map.Entry<List<KeyValue>, RedisLedgerEntry> e : ledger.entrySet()) {
      RedisLedgerEntry l = e.getValue();
      if (l.version().creationMicros() >= sinceMicros) {
        placements.put(e.getKey(), new Placement(l.entry(), true));
        if (l.entry() != null) {
          touched.add(l.entry().get(0));
        }
        replayed++;
      }
    }
    return this;
  }

  /**
   * Decides the batch against the ledger entries of its items (absent: never applied); changes created before
   * {@code horizonMicros} are stale (older than the dedupe window).
   */
  RedisGroupPlan decide(List<IndexChange> changes, Map<List<KeyValue>, RedisLedgerEntry> ledger, long horizonMicros) {
    Map<List<KeyValue>, List<IndexChange>> byItem = new LinkedHashMap<>();
    for (IndexChange c : changes) {
      byItem.computeIfAbsent(c.itemKey(), k -> new ArrayList<>()).add(c);
    }
    for (Map.Entry<List<KeyValue>, List<IndexChange>> e : byItem.entrySet()) {
      RedisLedgerEntry known = ledger.get(e.getKey());
      IndexChange latest = null;
      Set<List<Object>> seen = new HashSet<>();
      for (IndexChange c : e.getValue()) {
        // a duplicate record has its original's creation time and content (its sequence number may differ)
        List<Object> identity = Arrays.asList(c.version().creationMicros(), c.removed(), c.added());
        boolean isNew = c.version().creationMicros() >= horizonMicros
            && (known == null || c.version().isAfter(known.version()));
        if (isNew && seen.add(identity)) {
          applied++;
          appliedCreationMicros.add(c.version().creationMicros());
          if (latest == null || c.version().isAfter(latest.version())) {
            latest = c;
          }
        } else {
          stale++;
        }
      }
      if (latest == null && known == null) {
        continue; // stale by the dedupe window only: nothing is known of the item
      }
      for (IndexChange c : e.getValue()) {
        if (c.removed() != null) {
          touched.add(c.removed().get(0));
        }
        if (c.added() != null) {
          touched.add(c.added().get(0));
        }
      }
      if (latest != null) {
        placements.put(e.getKey(), new Placement(latest.added(), true));
        ledgerUpdates.put(e.getKey(), new RedisLedgerEntry(latest.version(), latest.added()));
      } else if (!placements.containsKey(e.getKey())) {
        placements.put(e.getKey(), new Placement(known.entry(), false)); // repair: only drop strays
      }
    }
    return this;
  }

  /** Sort keys whose runs must be read (and may be rebuilt). */
  TreeSet<KeyValue> touchedSortKeys() {
    return touched;
  }

  /** Items whose members must be found wherever they are after a {@link #replay} (read the whole set). */
  Set<List<KeyValue>> itemsToFind() {
    return placements.keySet();
  }

  /** Adds to the touched sort keys those of the members, of a whole set, that belong to {@link #itemsToFind()}. */
  void touchRunsHoldingItems(List<Member> wholeSet) {
    for (Member m : wholeSet) {
      if (placements.containsKey(itemOf(m.record().keys()))) {
        touched.add(m.record().sortKey());
      }
    }
  }

  /**
   * Computes the members to remove and add from the current members of every touched run (a run absent from the
   * map is empty). A run whose entries do not change is left as it is.
   */
  RedisGroupPlan rebuild(Map<KeyValue, List<Member>> runs, TieOrder ties) {
    for (KeyValue sortKey : touched) {
      List<Member> current = runs.getOrDefault(sortKey, List.of());
      TreeMap<IndexEntry, Boolean> entries = new TreeMap<>(IndexEntry.ORDER);
      for (Member m : current) {
        Placement p = placements.get(itemOf(m.record().keys()));
        if (p == null || m.record().keys().equals(p.entry())) {
          entries.put(new IndexEntry(group, m.record().keys()), Boolean.TRUE);
        }
      }
      for (Placement p : placements.values()) {
        if (p.add() && p.entry() != null && p.entry().get(0).equals(sortKey)) {
          entries.put(new IndexEntry(group, p.entry()), Boolean.TRUE);
        }
      }
      if (sameEntries(current, entries.keySet())) {
        continue;
      }
      runsRebuilt++;
      for (Member m : current) {
        removes.add(m.bytes());
      }
      GroupRecords records = new GroupRecords(ties, r -> adds.add(SortedSetMember.encode(r, schema.storedAttributes())));
      try {
        for (IndexEntry x : entries.keySet()) {
          records.add(x);
        }
        records.finish();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return this;
  }

  private static boolean sameEntries(List<Member> current, Set<IndexEntry> next) {
    if (current.size() != next.size()) {
      return false;
    }
    Set<List<KeyValue>> keys = new HashSet<>();
    current.forEach(m -> keys.add(m.record().keys()));
    return next.stream().allMatch(e -> keys.contains(e.keys()));
  }

  /** The item (table primary key values) of an entry of this group. */
  List<KeyValue> itemOf(List<KeyValue> keys) {
    Map<String, KeyValue> byName = new HashMap<>();
    byName.put(schema.groupAttribute(), group);
    for (int i = 0; i < schema.storedAttributes().size(); i++) {
      byName.put(schema.storedAttributes().get(i).name(), keys.get(i));
    }
    List<KeyValue> pk = new ArrayList<>(2);
    for (String name : schema.primaryKeyNames()) {
      pk.add(byName.get(name));
    }
    return pk;
  }

  List<byte[]> removes() {
    return removes;
  }

  List<byte[]> adds() {
    return adds;
  }

  Map<List<KeyValue>, RedisLedgerEntry> ledgerUpdates() {
    return ledgerUpdates;
  }

  List<Long> appliedCreationMicros() {
    return appliedCreationMicros;
  }

  long applied() {
    return applied;
  }

  long stale() {
    return stale;
  }

  long replayed() {
    return replayed;
  }

  long runsRebuilt() {
    return runsRebuilt;
  }

  /** Whether the plan writes anything. */
  boolean writes() {
    return !removes.isEmpty() || !adds.isEmpty() || !ledgerUpdates.isEmpty();
  }
}
