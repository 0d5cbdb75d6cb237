package io.pagemark.wal;

import java.time.Instant;
import java.util.Objects;

/**
 * How far a change stream has durably applied one Kinesis shard: every record of the shard up to and including
 * {@code sequenceNumber} is applied (its changes written, or it changed nothing), and {@code arrival} is that record's
 * approximate arrival time in Kinesis, from which a restarted stream can read again without missing a later record.
 * Sequence numbers are compared as the unsigned decimal numbers Kinesis defines them to be.
 *
 * @param sequenceNumber the Kinesis sequence number (decimal digits)
 * @param arrival the record's ApproximateArrivalTimestamp
 */
public record ShardPosition(String sequenceNumber, Instant arrival) implements java.io.Serializable {
  private static final long serialVersionUID = 1L;

  public ShardPosition {
    Objects.requireNonNull(arrival, "arrival");
    sequenceNumber = canonical(sequenceNumber);
  }

  /** Whether this position is further along its shard than {@code o}. */
  public boolean isAfter(ShardPosition o) {
    return compareSequenceNumbers(sequenceNumber, o.sequenceNumber) > 0;
  }

  /** Whether the record with sequence number {@code s} of this shard is at or before this position. */
  public boolean covers(String s) {
    return compareSequenceNumbers(canonical(s), sequenceNumber) <= 0;
  }

  /**
   * Compares two sequence numbers of one shard as numbers (they exceed a long).
   *
   * @throws IllegalArgumentException if either is not decimal digits
   */
  public static int compareSequenceNumbers(String a, String b) {
    String x = canonical(a);
    String y = canonical(b);
    int c = Integer.compare(x.length(), y.length());
    return c != 0 ? c : x.compareTo(y);
  }

  private static String canonical(String s) {
    Objects.requireNonNull(s, "sequenceNumber");
    if (s.isEmpty() || s.length() > 128 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("a Kinesis sequence number is 1 to 128 decimal digits, not \"" + s + "\"");
    }
    int zeros = 0;
    while (zeros < s.length() - 1 && s.charAt(zeros) == '0') {
      zeros++;
    }
    return s.substring(zeros);
  }
}
