package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * Service provider interface: one group of one build, as a store (a group file, a Redis sorted set) serves it to
 * {@link GroupPages}: its entries by rank in DynamoDB's ascending order, and what an exclusive start key needs besides
 * them. {@link GroupPages} computes page starts from this alone, so every store answers identically; applications
 * never see it.
 *
 * <p>Implementations answer every read from one build and are thread-safe. A store that can replace the group while
 * it is read throws {@link GroupRepublishedException} from {@link #record(long)} rather than mix two builds.
 */
public interface RankedGroup extends AutoCloseable {
  /** The group key. */
  KeyValue group();

  /** The group key attribute's name. */
  String groupAttribute();

  /** The attributes stored in each record, the index sort key first. */
  List<KeyAttribute> attributes();

  /** The build that wrote this group. */
  String buildId();

  /** Number of entries. */
  long count();

  /**
   * The record at an ascending rank.
   *
   * @param rank from 0, below {@link #count()}
   * @throws IndexOutOfBoundsException if the rank is outside 0..count-1
   * @throws GroupRepublishedException if the store replaced the group since it was opened
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  IndexRecord record(long rank) throws IOException;

  /**
   * The count and the records within {@code radius} ranks of the entry a read in {@code order} returns just before
   * {@code position} (ascending: rank {@code position - 1}; descending: rank {@code count - position}), all from one
   * state of the store, so that a page start never mixes the group before and after a change. A store whose groups
   * never change once opened (files) keeps this default, itself; one that changes them in place (Redis under the
   * change stream) reads a {@link RankWindow} in one atomic step.
   *
   * @param position a position counted in {@code order}, from 0
   * @param order the order the position is counted in
   * @param radius ranks either side of the centre to read, at least 1
   * @throws GroupRepublishedException if the store replaced the group since it was opened
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  default RankedGroup near(long position, Order order, int radius) throws IOException {
    return this;
  }

  /**
   * The count and the records at {@code ranks} (ascending ranks; those at or past the count are left out), all from
   * one state of the store: what a union's page start reads a group through, asking again with more ranks when it
   * needs one more record, so that no group's share of a union page mixes two of its states. A store whose groups
   * never change once opened keeps this default, itself; one that changes them in place reads a {@link RankWindow} in
   * one atomic step.
   *
   * @param ranks ascending ranks, each at least 0
   * @throws GroupRepublishedException if the store replaced the group since it was opened
   * @throws IOException if the store cannot be read or holds a damaged record
   */
  default RankedGroup snapshot(Set<Long> ranks) throws IOException {
    return this;
  }

  /**
   * Releases what the group holds (a file handle, say).
   *
   * @throws IOException if releasing fails
   */
  @Override
  void close() throws IOException;
}
