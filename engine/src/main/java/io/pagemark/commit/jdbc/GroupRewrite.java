package io.pagemark.commit.jdbc;

import io.pagemark.commit.PendingChanges;
import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.order.GroupRecords;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A group's records after its pending changes, as the file commit computes them: base records are kept in order,
 * except the runs of the sort keys the changes name, which are rebuilt (entries removed, entries added, equal sort
 * keys put in DynamoDB's order again by a {@link TieOrder}).
 */
final class GroupRewrite {
  private GroupRewrite() {}

  static List<IndexRecord> apply(KeyValue group, List<IndexRecord> base, PendingChanges pending, TieOrder ties)
      throws IOException {
    List<IndexRecord> out = new ArrayList<>(base.size() + pending.addsBySortKey().size());
    int i = 0;
    for (Map.Entry<KeyValue, List<IndexEntry>> e : pending.addsBySortKey().entrySet()) {
      KeyValue sortKey = e.getKey();
      while (i < base.size() && base.get(i).sortKey().compareTo(sortKey) < 0) {
        out.add(base.get(i++));
      }
      List<IndexRecord> run = new ArrayList<>();
      List<IndexEntry> kept = new ArrayList<>();
      while (i < base.size() && base.get(i).sortKey().compareTo(sortKey) == 0) {
        IndexRecord r = base.get(i++);
        run.add(r);
        if (!pending.dropped().contains(r.keys())) {
          kept.add(new IndexEntry(group, r.keys()));
        }
      }
      if (PendingChanges.runUnchanged(run, kept, e.getValue())) {
        out.addAll(run);
        continue;
      }
      kept.addAll(e.getValue());
      kept.sort(IndexEntry.ORDER);
      GroupRecords records = new GroupRecords(ties, out::add);
      for (IndexEntry x : kept) {
        records.add(x);
      }
      records.finish();
    }
    while (i < base.size()) {
      out.add(base.get(i++));
    }
    return out;
  }

  /** The first position where two record lists differ (the shorter one's length when one is a prefix). */
  static int firstDifference(List<IndexRecord> a, List<IndexRecord> b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      if (!a.get(i).equals(b.get(i))) {
        return i;
      }
    }
    return n;
  }
}
