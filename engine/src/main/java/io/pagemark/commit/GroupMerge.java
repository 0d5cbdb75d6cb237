package io.pagemark.commit;

import io.pagemark.change.IndexChange;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.GroupFile;
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
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Merges one group's pending changes into its group file, streaming: only the changes are sorted; the base file is
 * read once, in order, and copied block by block without decoding ({@link RecordCursor}), except for the runs of the
 * sort keys the changes name, which are rebuilt (entries removed, entries added, equal sort keys put in DynamoDB's order again by a {@link TieOrder}).
 *
 * <p>Which changes apply is decided by {@link PendingChanges} (the rules every store's commit shares).
 */
public final class GroupMerge {
  /** What the merge wrote. */
  record Result(
      GroupHeader header, long entries, long tieRuns, long unresolvedRuns, long applied, long stale,
      long runsRebuilt, List<Long> appliedCreationMicros) {
    boolean empty() {
      return entries == 0;
    }
  }

  /** Counts of runs of equal sort keys in a range of base records, to correct the base's manifest counts. */
  private long baseRunsRemoved;
  private long baseUnresolvedRemoved;

  private final GroupFile base;
  private final TieOrder ties;

  private GroupMerge(GroupFile base, TieOrder ties) {
    this.base = base;
    this.ties = ties;
  }

  /**
   * Writes the merged group to {@code out}; deletes it again when the group ends up empty.
   *
   * @param base the group's file in the base build, or null for a group the base does not have
   * @param baseTieRuns runs of equal sort keys in the base file (from its manifest line), and those unresolved
   * @param changes every pending change of the group
   * @param ledger the group's version ledger; updated with the changes applied
   * @param template header of the new file: group, attributes, build id and time (width and count are computed)
   */
  static Result merge(GroupFile base, long baseTieRuns, long baseUnresolved, List<IndexChange> changes,
      VersionLedger ledger, TieOrder ties, GroupHeader template, Path out) throws IOException {
    return new GroupMerge(base, ties).run(baseTieRuns, baseUnresolved, changes, ledger, template, out);
  }

  private Result run(long baseTieRuns, long baseUnresolved, List<IndexChange> changes, VersionLedger ledger,
      GroupHeader template, Path out) throws IOException {
    KeyValue group = template.groupKey();
    PendingChanges pending = PendingChanges.decide(group, changes, ledger);
    Set<List<KeyValue>> drop = pending.dropped();
    java.util.NavigableMap<KeyValue, List<IndexEntry>> addsBySortKey = pending.addsBySortKey();
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
      return new Result(null, 0, 0, 0, applied, stale, 0, appliedTimes);
    }
    GroupHeader header = new GroupHeader(template.groupAttribute(), group, template.attributes(), width, 0,
        template.buildTimeMillis(), template.buildId(), new byte[32]);
    long runsRebuilt = 0;
    long newRuns = 0;
    long newUnresolved = 0;
    GroupHeader done;
    RecordCursor cursor = base == null ? null : base.cursor();
    try (GroupFileWriter w = new GroupFileWriter(out, header)) {
      w.startWriteBack(); // the commit waits for this file's fsync: let the disk start on it while the merge runs
      for (Map.Entry<KeyValue, List<IndexEntry>> e : addsBySortKey.entrySet()) {
        KeyValue sortKey = e.getKey();
        List<IndexEntry> entries = new ArrayList<>();
        List<IndexRecord> run = new ArrayList<>();
        if (cursor != null) {
          cursor.copyWhileBelow(sortKey, w);
          while (cursor.hasNext() && cursor.compareNextSortKey(sortKey) == 0) {
            IndexRecord rec = cursor.next();
            run.add(rec);
            if (!drop.contains(rec.keys())) {
              entries.add(new IndexEntry(group, rec.keys()));
            }
          }
        }
        if (PendingChanges.runUnchanged(run, entries, e.getValue())) {
          for (IndexRecord rec : run) {
            w.append(rec); // nothing changes in this run (a replay, or names of other entries)
          }
          continue;
        }
        countBaseRun(run);
        entries.addAll(e.getValue());
        entries.sort(IndexEntry.ORDER);
        GroupRecords records = new GroupRecords(ties, w::append);
        for (IndexEntry x : entries) {
          records.add(x);
        }
        records.finish();
        newRuns += records.tieRuns();
        newUnresolved += records.unresolvedRuns();
        runsRebuilt++;
      }
      if (cursor != null) {
        cursor.copyRest(w);
      }
      done = w.finish();
    }
    if (done.entryCount() == 0) {
      Files.delete(out);
    }
    return new Result(done, done.entryCount(), baseTieRuns - baseRunsRemoved + newRuns,
        baseUnresolved - baseUnresolvedRemoved + newUnresolved, applied, stale, runsRebuilt, appliedTimes);
  }

  /** Counts the run of equal sort keys the rebuilt base records formed (they were one run, or one unique entry). */
  private void countBaseRun(List<IndexRecord> run) {
    if (run.size() > 1) {
      baseRunsRemoved++;
      baseUnresolvedRemoved += run.get(0).runOrderKnown() ? 0 : 1;
    }
  }
}
