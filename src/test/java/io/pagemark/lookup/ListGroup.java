package io.pagemark.lookup;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.util.List;

/** Test fixture: a group's records held in memory, counting record reads. */
public final class ListGroup implements RankedGroup {
  private final KeyValue group;
  private final String groupAttribute;
  private final List<KeyAttribute> attributes;
  private final List<IndexRecord> records;
  private int reads;

  public ListGroup(KeyValue group, String groupAttribute, List<KeyAttribute> attributes, List<IndexRecord> records) {
    this.group = group;
    this.groupAttribute = groupAttribute;
    this.attributes = List.copyOf(attributes);
    this.records = List.copyOf(records);
  }

  /** Record reads since the last call. */
  public int takeReads() {
    int r = reads;
    reads = 0;
    return r;
  }

  @Override
  public KeyValue group() {
    return group;
  }

  @Override
  public String groupAttribute() {
    return groupAttribute;
  }

  @Override
  public List<KeyAttribute> attributes() {
    return attributes;
  }

  @Override
  public String buildId() {
    return "test";
  }

  @Override
  public long count() {
    return records.size();
  }

  @Override
  public IndexRecord record(long rank) {
    reads++;
    return records.get((int) rank);
  }

  @Override
  public void close() {}
}
