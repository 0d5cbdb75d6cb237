package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.util.List;

/**
 * One entry of a group file (one item of the table), at its rank in DynamoDB's ascending order.
 *
 * @param tiePosition position of this entry within its run of equal sort keys (0 for an entry whose sort key is unique)
 * @param runLength number of entries in the run (1 for a unique sort key)
 * @param runOrderKnown whether the run's order is DynamoDB's own (resolved against DynamoDB at build time)
 * @param descendingSlot for the entry at run position k: the run position of the entry DynamoDB returns k-th when it
 *     reads the run descending
 * @param keys the stored key attribute values, in the header's attribute order (the index sort key first)
 */
public record IndexRecord(
    int tiePosition, int runLength, boolean runOrderKnown, int descendingSlot, List<KeyValue> keys) {
  public IndexRecord {
    keys = List.copyOf(keys);
    if (runLength < 1 || tiePosition < 0 || tiePosition >= runLength) {
      throw new IllegalArgumentException(
          "tie position " + tiePosition + " is outside a run of " + runLength);
    }
    if (descendingSlot < 0 || descendingSlot >= runLength) {
      throw new IllegalArgumentException(
          "descending slot " + descendingSlot + " is outside a run of " + runLength);
    }
  }

  /** A record for an entry whose sort key no other entry of its group shares. */
  public static IndexRecord unique(List<KeyValue> keys) {
    return new IndexRecord(0, 1, true, 0, keys);
  }

  /** The index sort key value. */
  public KeyValue sortKey() {
    return keys.get(0);
  }
}
