package io.pagemark.server.resp;

import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import java.io.IOException;
import java.util.List;

/**
 * One group of one build as the sorted-set commands read it: members by ascending rank, DynamoDB's descending order,
 * and a member's rank. What a store needs to offer the RESP server; an event loop opens its own views and uses them
 * from its thread only, so implementations need not be thread-safe.
 */
interface GroupView extends AutoCloseable {
  KeyValue group();

  /** Entries of the group. */
  long count();

  /** The group's member format (to parse members clients send). */
  Members members();

  /**
   * Announces that the next reads fall in ascending ranks {@code [lo, hi]}, walked upwards or downwards, so that an
   * implementation can read them in blocks; {@link #endRange()} ends the announcement.
   */
  void range(long lo, long hi, boolean downwards);

  void endRange();

  /** Writes the member of the entry at an ascending rank to {@code out}; returns its length. */
  int member(long rank, Scratch out) throws IOException;

  /** The ascending rank of the entry a descending Query returns at {@code position} (0-based). */
  long ascendingAt(long position) throws IOException;

  /** The position at which a descending Query returns the entry of ascending rank {@code rank}. */
  long descendingOf(long rank) throws IOException;

  /** The ascending rank of the entry with these stored key values (sort key first), or -1 when there is none. */
  long rankOf(List<KeyValue> keys) throws IOException;

  /** Page starts of this group (for {@code PM.PAGE}); valid while this view is open, closing them does nothing. */
  GroupPages pages();

  @Override
  void close() throws IOException;
}
