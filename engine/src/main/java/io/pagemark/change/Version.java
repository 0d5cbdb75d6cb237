package io.pagemark.change;

import java.io.Serializable;
import java.util.Objects;

/**
 * The order of one item's changes: the record's {@code ApproximateCreationDateTime} in microseconds, then, for two
 * changes stamped with the same time, the record's sequence number in its Kinesis shard (every record of one item
 * lands in one shard, in order). A change applies only over an older version of the same item, so a duplicated or
 * replayed record, or one delivered late, changes nothing.
 *
 * @param creationMicros ApproximateCreationDateTime, microseconds since the Unix epoch
 * @param sequence the Kinesis sequence number (decimal digits, no leading zeros), or "" when unknown
 */
public record Version(long creationMicros, String sequence) implements Comparable<Version>, Serializable {
  private static final long serialVersionUID = 1L;

  public Version {
    Objects.requireNonNull(sequence, "sequence");
    if (sequence.length() > 255 || !sequence.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("sequence number must be at most 255 decimal digits: " + sequence);
    }
    int zeros = 0;
    while (zeros < sequence.length() - 1 && sequence.charAt(zeros) == '0') {
      zeros++;
    }
    sequence = sequence.substring(zeros);
  }

  @Override
  public int compareTo(Version o) {
    int c = Long.compare(creationMicros, o.creationMicros);
    if (c != 0) {
      return c;
    }
    // Decimal strings without leading zeros: the longer is the larger.
    c = Integer.compare(sequence.length(), o.sequence.length());
    return c != 0 ? c : sequence.compareTo(o.sequence);
  }

  /** Whether this version is newer than {@code o}. */
  public boolean isAfter(Version o) {
    return compareTo(o) > 0;
  }

  @Override
  public String toString() {
    return creationMicros + (sequence.isEmpty() ? "" : "/" + sequence);
  }
}
