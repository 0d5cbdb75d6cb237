package io.pagemark.transforms.order;

import io.pagemark.format.EncodedRecords;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import java.util.List;

/**
 * A consecutive part of one group's entries, already in DynamoDB's order (equal sort keys included), as the records
 * every index sink stores. A group is split into parts so that no worker holds a whole hot group; parts never split a
 * run of equal sort keys, and part {@code part} of {@code parts} precedes part {@code part + 1}.
 *
 * @param group the group key
 * @param part this part's position among the group's parts (0-based)
 * @param parts the number of parts of the group
 * @param records the part's records in ascending order
 */
public record OrderedPart(KeyValue group, int part, int parts, List<IndexRecord> records) {
  public OrderedPart {
    // records held as their bytes are immutable already, and stay bytes for the file sink to write as they are
    records = records instanceof EncodedRecords ? records : List.copyOf(records);
    if (part < 0 || part >= parts) {
      throw new IllegalArgumentException("part " + part + " of " + parts);
    }
  }

  /**
   * The runs of equal sort keys that start in this part (each sink reports them), and how many of them are in an
   * order DynamoDB was not asked for. Records held as bytes are not decoded.
   *
   * @param runs runs of more than one entry that start in this part
   * @param unresolved those of them whose order is not DynamoDB's own
   */
  public record TieRuns(long runs, long unresolved) {}

  /** This part's {@link TieRuns}. */
  public TieRuns tieRuns() {
    EncodedRecords bytes = records instanceof EncodedRecords e ? e : null;
    long runs = 0;
    long unresolved = 0;
    for (int i = 0; i < records.size(); i++) {
      IndexRecord r = bytes == null ? records.get(i) : null;
      int tie = r != null ? r.tiePosition() : bytes.tiePosition(i);
      int length = r != null ? r.runLength() : bytes.runLength(i);
      if (tie == 0 && length > 1) {
        runs++;
        unresolved += (r != null ? r.runOrderKnown() : bytes.runOrderKnown(i)) ? 0 : 1;
      }
    }
    return new TieRuns(runs, unresolved);
  }
}
