package io.pagemark.commit;

import io.pagemark.change.IndexChange;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupFileFormat;
import io.pagemark.format.GroupFileSplice;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.RecordCursor;
import io.pagemark.key.KeyValue;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;

/**
 * Merges one group's pending changes into its group file, streaming: only the changes are sorted; the base file is
 * read once, in order, and its records are copied block by block ({@link GroupFileSplice} for a version-2 base whose
 * codecs hold the changes, else {@link RecordCursor} and a full rewrite), except for the runs of the sort keys the
 * changes name, which are rebuilt (entries removed, entries added, equal sort keys put in DynamoDB's order again by a
 * {@link TieOrder}).
 *
 * <p>Which changes apply is decided by {@link PendingChanges} (the rules every store's commit shares).
 */
public final class GroupMerge {
  /** What the merge wrote; {@code spliced} when the base's records were copied as they are encoded. */
  record Result(
      GroupHeader header, long entries, long tieRuns, long unresolvedRuns, long applied, long stale,
      long runsRebuilt, List<Long> appliedCreationMicros, boolean spliced) {
    boolean empty() {
      return entries == 0;
    }
  }

  /** Counts of runs of equal sort keys in a range of base records, to correct the base's manifest counts. */
  private long baseRunsRemoved;
  private long baseUnresolvedRemoved;
  private long runsRebuilt;
  private long newRuns;
  private long newUnresolved;

  private final GroupFile base;
  private final TieOrder ties;
  private KeyValue group;
  private Set<List<KeyValue>> drop;
  /** The records each touched run became (null: unchanged), so that a full rewrite after a splice reuses them. */
  private final Map<KeyValue, List<IndexRecord>> rebuilt = new HashMap<>();

  private GroupMerge(GroupFile base, TieOrder ties) {
    this.base = base;
    this.ties = ties;
  }

  /**
   * Writes the merged group to {@code out}; deletes it again when the group ends up empty. A version-2 base whose
   * codecs hold the new records is spliced ({@link GroupFileSplice}: its other records are copied as they are
   * encoded); any other is rewritten in full. Both give the same bytes.
   *
   * @param base the group's file in the base build, or null for a group the base does not have
   * @param baseTieRuns runs of equal sort keys in the base file (from its manifest line), and those unresolved
   * @param changes every pending change of the group
   * @param ledger the group's version ledger; updated with the changes applied
   * @param template header of the new file: group, attributes, build id and time (width and count are computed)
   */
  static Result merge(GroupFile base, long baseTieRuns, long baseUnresolved, List<IndexChange> changes,
      VersionLedger ledger, TieOrder ties, GroupHeader template, Path out) throws IOException {
    return merge(base, baseTieRuns, baseUnresolved, changes, ledger, ties, template, out, true);
  }

  /** As {@link #merge}; {@code splice} false always rewrites in full (the reference the splice is tested against). */
  static Result merge(GroupFile base, long baseTieRuns, long baseUnresolved, List<IndexChange> changes,
      VersionLedger ledger, TieOrder ties, GroupHeader template, Path out, boolean splice) throws IOException {
    return new GroupMerge(base, ties).run(baseTieRuns, baseUnresolved, changes, ledger, template, out, splice);
  }

  private Result run(long baseTieRuns, long baseUnresolved, List<IndexChange> changes, VersionLedger ledger,
      GroupHeader template, Path out, boolean splice) throws IOException {
    group = template.groupKey();
    PendingChanges pending = PendingChanges.decide(group, changes, ledger);
    drop = pending.dropped();
    NavigableMap<KeyValue, List<IndexEntry>> addsBySortKey = pending.addsBySortKey();
    long applied = pending.applied();
    long stale = pending.stale();
    List<Long> appliedTimes = pending.appliedCreationMicros();

    int width = base == null ? 0 : base.unpackedRecordWidth();
    for (List<IndexEntry> adds : addsBySortKey.values()) {
      for (IndexEntry a : adds) {
        width = Math.max(width, GroupFileWriter.widthFor(a.keys()));
      }
    }
    if (width == 0) {
      // no base and nothing to add: the group stays absent
      return new Result(null, 0, 0, 0, applied, stale, 0, appliedTimes, false);
    }
    GroupHeader header = new GroupHeader(template.groupAttribute(), group, template.attributes(), width, 0,
        template.buildTimeMillis(), template.buildId(), new byte[32]);
    GroupHeader done = null;
    if (splice && base != null && GroupFileFormat.defaultVersion() == GroupFileFormat.VERSION_2) {
      done = GroupFileSplice.splice(base, addsBySortKey.keySet(),
          (sortKey, run) -> rebuild(sortKey, run, addsBySortKey.get(sortKey)), header, out);
    }
    boolean spliced = done != null;
    if (!spliced) {
      done = rewrite(addsBySortKey, header, out);
    }
    if (done.entryCount() == 0) {
      Files.delete(out);
    }
    return new Result(done, done.entryCount(), baseTieRuns - baseRunsRemoved + newRuns,
        baseUnresolved - baseUnresolvedRemoved + newUnresolved, applied, stale, runsRebuilt, appliedTimes,
        spliced);
  }

  /** Writes the whole group: the base's records decoded and written again, the touched runs rebuilt. */
  private GroupHeader rewrite(NavigableMap<KeyValue, List<IndexEntry>> addsBySortKey, GroupHeader header, Path out)
      throws IOException {
    RecordCursor cursor = base == null ? null : base.cursor();
    try (GroupFileWriter w = new GroupFileWriter(out, header)) {
      w.startWriteBack(); // the commit waits for this file's fsync: let the disk start on it while the merge runs
      for (Map.Entry<KeyValue, List<IndexEntry>> e : addsBySortKey.entrySet()) {
        KeyValue sortKey = e.getKey();
        List<IndexRecord> run = new ArrayList<>();
        if (cursor != null) {
          cursor.copyWhileBelow(sortKey, w);
          while (cursor.hasNext() && cursor.compareNextSortKey(sortKey) == 0) {
            run.add(cursor.next());
          }
        }
        List<IndexRecord> records = rebuilt.containsKey(sortKey) ? rebuilt.get(sortKey)
            : rebuild(sortKey, run, e.getValue());
        for (IndexRecord rec : records == null ? run : records) {
          w.append(rec);
        }
      }
      if (cursor != null) {
        cursor.copyRest(w);
      }
      return w.finish();
    }
  }

  /**
   * The records that replace the base's run of {@code sortKey}: its entries not dropped plus {@code adds}, in
   * DynamoDB's order; null when nothing changes in the run (a replay, or names of other entries).
   */
  private List<IndexRecord> rebuild(KeyValue sortKey, List<IndexRecord> run, List<IndexEntry> adds)
      throws IOException {
    List<IndexEntry> entries = new ArrayList<>();
    for (IndexRecord rec : run) {
      if (!drop.contains(rec.keys())) {
        entries.add(new IndexEntry(group, rec.keys()));
      }
    }
    if (PendingChanges.runUnchanged(run, entries, adds)) {
      rebuilt.put(sortKey, null);
      return null;
    }
    countBaseRun(run);
    entries.addAll(adds);
    entries.sort(IndexEntry.ORDER);
    List<IndexRecord> records = new ArrayList<>();
    GroupRecords g = new GroupRecords(ties, records::add);
    for (IndexEntry x : entries) {
      g.add(x);
    }
    g.finish();
    newRuns += g.tieRuns();
    newUnresolved += g.unresolvedRuns();
    runsRebuilt++;
    rebuilt.put(sortKey, records);
    return records;
  }

  /** Counts the run of equal sort keys the rebuilt base records formed (they were one run, or one unique entry). */
  private void countBaseRun(List<IndexRecord> run) {
    if (run.size() > 1) {
      baseRunsRemoved++;
      baseUnresolvedRemoved += run.get(0).runOrderKnown() ? 0 : 1;
    }
  }
}
