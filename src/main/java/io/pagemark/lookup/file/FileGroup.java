package io.pagemark.lookup.file;

import io.pagemark.lookup.RankedGroup;

import io.pagemark.format.GroupFile;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.List;

/** A group file as a {@link RankedGroup}: one positioned read per record. */
final class FileGroup implements RankedGroup {
  private final GroupFile file;

  FileGroup(GroupFile file) {
    this.file = file;
  }

  @Override
  public KeyValue group() {
    return file.header().groupKey();
  }

  @Override
  public String groupAttribute() {
    return file.header().groupAttribute();
  }

  @Override
  public List<KeyAttribute> attributes() {
    return file.header().attributes();
  }

  @Override
  public String buildId() {
    return file.header().buildId();
  }

  @Override
  public long count() {
    return file.count();
  }

  @Override
  public IndexRecord record(long rank) throws IOException {
    return file.record(rank);
  }

  @Override
  public void close() throws IOException {
    file.close();
  }
}
