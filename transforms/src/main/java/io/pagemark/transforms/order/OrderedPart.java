package io.pagemark.transforms.order;

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
    records = records instanceof io.pagemark.format.EncodedRecords ? records : List.copyOf(records);
    if (part < 0 || part >= parts) {
      throw new IllegalArgumentException("part " + part + " of " + parts);
    }
  }
}
