package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Test fixture: writes and reads whole group files with the format's own classes. */
public final class GroupFiles {
  private GroupFiles() {}

  /** Writes the records into a new group file of the writers' default version; returns its header. */
  public static GroupHeader write(
      Path file, String groupAttribute, KeyValue group, List<KeyAttribute> attributes, String buildId,
      long buildTimeMillis, List<IndexRecord> records) throws IOException {
    return write(file, groupAttribute, group, attributes, buildId, buildTimeMillis, records,
        GroupFileFormat.defaultVersion());
  }

  /** Writes the records into a new group file of a format version; returns its header. */
  public static GroupHeader write(
      Path file, String groupAttribute, KeyValue group, List<KeyAttribute> attributes, String buildId,
      long buildTimeMillis, List<IndexRecord> records, int version) throws IOException {
    int width = GroupFileFormat.RECORD_PREFIX_BYTES;
    for (IndexRecord r : records) {
      width = Math.max(width, GroupFileWriter.widthFor(r.keys()));
    }
    GroupHeader header =
        new GroupHeader(groupAttribute, group, attributes, width, 0, buildTimeMillis, buildId, new byte[32]);
    try (GroupFileWriter w = new GroupFileWriter(file, header, version)) {
      for (IndexRecord r : records) {
        w.append(r);
      }
      return w.finish();
    }
  }

  /** Every record of a group file, in rank order. */
  public static List<IndexRecord> readAll(Path file) throws IOException {
    try (GroupFile f = GroupFile.open(file)) {
      List<IndexRecord> records = new ArrayList<>();
      for (long rank = 0; rank < f.count(); rank++) {
        records.add(f.record(rank));
      }
      return records;
    }
  }
}
