package io.pagemark.order;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.key.KeyValue;
import java.util.List;

/**
 * DynamoDB's own order of a run of entries with equal sort keys. DynamoDB returns such entries in an internal order
 * that no sort of their keys reproduces, and its descending order is not the ascending one reversed, so both are
 * learned from DynamoDB itself.
 */
public interface TieOrder {
  /**
   * The run's order as DynamoDB reads it.
   *
   * @param run the run's entries, in the index's deterministic fallback order
   * @return null when the order cannot be learned (the entries then keep the fallback order and the run is flagged
   *     so lookups step around it); else {@code ascending[k]} and {@code descending[k]}: the index in {@code run} of
   *     the entry DynamoDB returns k-th reading ascending and descending
   */
  Resolved resolve(KeyValue group, KeyValue sortKey, List<IndexEntry> run);

  /** Both reading orders of a run, as positions in the run passed to {@link #resolve}. */
  record Resolved(int[] ascending, int[] descending) {}

  /** A tie order that never resolves (for tables whose index cannot be queried). */
  TieOrder UNKNOWN = (group, sortKey, run) -> null;
}
