package io.pagemark.commit;

import io.pagemark.change.IndexChange;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The merge rules of a commit, for any store: which of a group's pending changes apply, decided against the group's
 * {@link VersionLedger}. Per item, the newest change the ledger has not seen decides: the item is at that change's
 * added entry, or absent; every entry of the item that any of its changes names is removed first. Changes no newer
 * than the ledger's are stale and change nothing. The file commit ({@link GroupMerge}) and the PostgreSQL commit
 * apply the result the same way: runs of the sort keys the changes name are rebuilt, everything else is kept.
 */
public final class PendingChanges {
  private final VersionLedger ledger;
  private final Set<List<KeyValue>> dropped;
  private final NavigableMap<KeyValue, List<IndexEntry>> addsBySortKey;
  private final long applied;
  private final long stale;
  private final List<Long> appliedCreationMicros;

  private PendingChanges(VersionLedger ledger, Set<List<KeyValue>> dropped,
      NavigableMap<KeyValue, List<IndexEntry>> addsBySortKey, long applied, long stale, List<Long> appliedTimes) {
    this.ledger = ledger;
    this.dropped = dropped;
    this.addsBySortKey = addsBySortKey;
    this.applied = applied;
    this.stale = stale;
    this.appliedCreationMicros = appliedTimes;
  }

  /**
   * Decides a group's changes against its ledger as stored ({@link #ledgerAfter}; null: none yet).
   *
   * @param horizonMicros changes created before this are in the build already (its backfill scanned them)
   * @throws IOException when the stored ledger is damaged
   */
  public static PendingChanges decide(KeyValue group, List<IndexChange> changes, byte[] ledger, long horizonMicros)
      throws IOException {
    VersionLedger l = ledger == null ? new VersionLedger(horizonMicros) : VersionLedger.decode(ledger);
    l.advanceHorizon(horizonMicros);
    return decide(group, changes, l);
  }

  /** Decides against {@code ledger}, recording the applied changes' versions in it. */
  static PendingChanges decide(KeyValue group, List<IndexChange> changes, VersionLedger ledger) {
    Map<List<KeyValue>, List<IndexChange>> byItem = new HashMap<>();
    for (IndexChange c : changes) {
      byItem.computeIfAbsent(c.itemKey(), k -> new ArrayList<>()).add(c);
    }
    Set<List<KeyValue>> drop = new HashSet<>();
    TreeMap<KeyValue, List<IndexEntry>> addsBySortKey = new TreeMap<>();
    long applied = 0;
    long stale = 0;
    List<Long> appliedTimes = new ArrayList<>();
    for (Map.Entry<List<KeyValue>, List<IndexChange>> e : byItem.entrySet()) {
      IndexChange latest = null;
      Set<List<Object>> seen = new HashSet<>();
      for (IndexChange c : e.getValue()) {
        // a duplicate record has its original's creation time and content (its sequence number may differ)
        List<Object> identity = java.util.Arrays.asList(c.version().creationMicros(), c.removed(), c.added());
        if (ledger.isNew(e.getKey(), c.version()) && seen.add(identity)) {
          applied++;
          appliedTimes.add(c.version().creationMicros());
          if (latest == null || c.version().isAfter(latest.version())) {
            latest = c;
          }
        } else {
          stale++;
        }
      }
      if (latest == null) {
        continue; // every change of this item is already in the group
      }
      for (IndexChange c : e.getValue()) {
        if (c.removed() != null) {
          drop.add(c.removed());
          addsBySortKey.putIfAbsent(c.removed().get(0), new ArrayList<>());
        }
        if (c.added() != null) {
          drop.add(c.added());
          addsBySortKey.putIfAbsent(c.added().get(0), new ArrayList<>());
        }
      }
      if (latest.added() != null) {
        addsBySortKey.get(latest.added().get(0)).add(new IndexEntry(group, latest.added()));
      }
      ledger.put(e.getKey(), latest.version());
    }
    return new PendingChanges(ledger, drop, addsBySortKey, applied, stale, appliedTimes);
  }

  /** The entries (as stored key lists) to remove from the group before the additions. */
  public Set<List<KeyValue>> dropped() {
    return Collections.unmodifiableSet(dropped);
  }

  /**
   * Every sort key whose run the changes touch, in DynamoDB's order, with the entries to add to it (often none: the
   * run only loses entries).
   */
  public NavigableMap<KeyValue, List<IndexEntry>> addsBySortKey() {
    return Collections.unmodifiableNavigableMap(addsBySortKey);
  }

  public long applied() {
    return applied;
  }

  public long stale() {
    return stale;
  }

  /** The creation times of the changes applied, for the lag from change to visible. */
  public List<Long> appliedCreationMicros() {
    return Collections.unmodifiableList(appliedCreationMicros);
  }

  /**
   * The group's ledger after these changes, to store with the group: entries older than the newest minus the dedupe
   * window are dropped (a change that old counts as applied).
   */
  public byte[] ledgerAfter(Duration dedupeWindow) throws IOException {
    ledger.advanceHorizon(ledger.newestMicros() - TimeUnit.MILLISECONDS.toMicros(dedupeWindow.toMillis()));
    return ledger.encode();
  }

  /**
   * Whether a run needs no rebuild: the entries kept from it plus the ones added are exactly its entries (a replay,
   * or changes that name entries of other runs).
   */
  public static boolean runUnchanged(List<IndexRecord> run, List<IndexEntry> kept, List<IndexEntry> adds) {
    if (kept.size() + adds.size() != run.size()) {
      return false;
    }
    if (adds.isEmpty()) {
      return true;
    }
    Set<List<KeyValue>> keys = new HashSet<>();
    run.forEach(r -> keys.add(r.keys()));
    return adds.stream().allMatch(a -> keys.contains(a.keys()));
  }
}
