package io.pagemark.lookup;

import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Service provider interface: one group as a store serves it to {@link GroupPages} when it holds where pages start
 * rather than every rank (page markers inside DynamoDB). It answers page starts for the one page size it was built
 * for; {@link GroupPages} refuses any other with a clear error, and answers nothing that needs a key at every rank
 * (unions, {@link GroupPages#keyAt}). Applications never see it.
 *
 * <p>Implementations are thread-safe and answer from the store as it is when asked.
 */
public interface PagedGroup extends AutoCloseable {
  /** The group key. */
  KeyValue group();

  /** The group key attribute's name. */
  String groupAttribute();

  /** The key attributes of an entry, the index sort key first. */
  List<KeyAttribute> attributes();

  /** The build that wrote the group's page starts. */
  String buildId();

  /** Number of entries. */
  long count();

  /** The only page size whose page starts this store holds. */
  int pageSize();

  /**
   * Where a read of the group in {@code order} reaches the entry at {@code position} (0-based, counted in that order,
   * a multiple of {@link #pageSize()} below {@link #count()}).
   *
   * @throws IOException if the store cannot be read or lacks a page start it should hold
   */
  Start startAt(long position, Order order) throws IOException;

  /**
   * The entries a read of the group in {@code order} returns at positions {@code position} to
   * {@code position + n - 1} (fewer at the group's end), each with its ascending rank, read from the store itself.
   *
   * @throws IOException if the store cannot be read or lacks a page start it should hold
   */
  List<GroupPages.Entry> entries(long position, int n, Order order) throws IOException;

  /**
   * The position at which a read of the group in {@code order} returns the entry with these stored key values (the
   * sort key first), or -1 when the group holds no such entry.
   *
   * @throws IOException if the store cannot be read
   */
  long positionOf(List<KeyValue> keys, Order order) throws IOException;

  /**
   * A Query from {@code exclusiveStartKey} (null: the group's start) that drops {@code skip} items reaches the
   * position asked for.
   */
  record Start(Map<String, KeyValue> exclusiveStartKey, long skip) {}

  /**
   * Releases what the group holds.
   *
   * @throws IOException if releasing fails
   */
  @Override
  void close() throws IOException;
}
