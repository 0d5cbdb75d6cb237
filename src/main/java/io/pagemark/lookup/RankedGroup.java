package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;

/**
 * One group of one build, as any index backend (a group file, a Redis sorted set) serves it: its entries by rank in
 * DynamoDB's ascending order, and what an exclusive start key needs besides them. {@link GroupPages} computes page
 * starts from this alone, so every backend answers identically.
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

  /** The record at an ascending rank (0-based, below {@link #count()}). */
  IndexRecord record(long rank) throws IOException;

  @Override
  void close() throws IOException;
}
