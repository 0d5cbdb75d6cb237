package io.pagemark.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.IndexRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a group's entries, in ascending sort-key order, into index records: entries whose sort keys are unique pass
 * straight through; a run of equal sort keys is buffered, put in DynamoDB's order by a {@link TieOrder}, and written
 * with each record's position in the run, the run's length and the descending-order slots (see docs/order.md, "Equal
 * sort keys").
 */
public final class GroupRecords {
  /** Receives records in rank order. */
  public interface Sink {
    void accept(IndexRecord r) throws IOException;
  }

  private final TieOrder ties;
  private final Sink sink;
  private final List<IndexEntry> run = new ArrayList<>();
  private long tieRuns;
  private long unresolvedRuns;
  private long count;
  private IndexEntry previous;

  public GroupRecords(TieOrder ties, Sink sink) {
    this.ties = ties;
    this.sink = sink;
  }

  /** Adds the next entry; entries must come in {@link IndexEntry#ORDER}. */
  public void add(IndexEntry e) throws IOException {
    if (previous != null) {
      int c = IndexEntry.ORDER.compare(previous, e);
      if (c > 0) {
        throw new IllegalStateException("entries out of order: " + previous + " before " + e);
      }
    }
    previous = e;
    count++;
    if (!run.isEmpty() && run.get(0).sortKey().compareTo(e.sortKey()) != 0) {
      flush();
    }
    run.add(e);
  }

  /** Writes the last run. */
  public void finish() throws IOException {
    flush();
  }

  public long count() {
    return count;
  }

  public long tieRuns() {
    return tieRuns;
  }

  public long unresolvedRuns() {
    return unresolvedRuns;
  }

  private void flush() throws IOException {
    if (run.isEmpty()) {
      return;
    }
    if (run.size() == 1) {
      sink.accept(IndexRecord.unique(run.get(0).keys()));
    } else {
      tieRuns++;
      int n = run.size();
      TieOrder.Resolved r = ties.resolve(run.get(0).group(), run.get(0).sortKey(), run);
      if (r == null) {
        unresolvedRuns++;
        for (int k = 0; k < n; k++) {
          sink.accept(new IndexRecord(k, n, false, n - 1 - k, run.get(k).keys()));
        }
      } else {
        // The file holds the run in DynamoDB's ascending order; slot k names (by run position) the entry that
        // DynamoDB returns k-th when reading descending.
        int[] runPosition = new int[n];
        for (int k = 0; k < n; k++) {
          runPosition[r.ascending()[k]] = k;
        }
        for (int k = 0; k < n; k++) {
          IndexEntry e = run.get(r.ascending()[k]);
          sink.accept(new IndexRecord(k, n, true, runPosition[r.descending()[k]], e.keys()));
        }
      }
    }
    run.clear();
  }
}
