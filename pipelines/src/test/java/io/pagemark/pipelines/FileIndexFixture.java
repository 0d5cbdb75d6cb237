package io.pagemark.pipelines;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.transforms.order.OrderedPart;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Writes a file index, with {@link GroupFileWriter}, from the same {@link OrderedPart}s a Redis index is loaded from. */
final class FileIndexFixture {
  private FileIndexFixture() {}

  /** Writes and publishes build {@code buildId} under {@code root}; returns the bytes of all group files. */
  static long write(Path root, KeySchema schema, String buildId, List<OrderedPart> parts) throws IOException {
    IndexLayout layout = new IndexLayout(root);
    Path dir = layout.partialBuild(buildId);
    List<OrderedPart> sorted = new ArrayList<>(parts);
    sorted.sort(Comparator.comparing((OrderedPart p) -> p.group().text()).thenComparingInt(OrderedPart::part));
    long bytes = 0;
    long entries = 0;
    long groups = 0;
    for (int i = 0; i < sorted.size(); ) {
      OrderedPart first = sorted.get(i);
      List<IndexRecord> records = new ArrayList<>();
      int width = 0;
      for (int k = 0; k < first.parts(); k++, i++) {
        for (IndexRecord r : sorted.get(i).records()) {
          records.add(r);
          width = Math.max(width, GroupFileWriter.widthFor(r.keys()));
        }
      }
      Path file = GroupPaths.resolve(dir, first.group());
      GroupHeader header = new GroupHeader(schema.groupAttribute(), first.group(), schema.storedAttributes(), width,
          0, 0, buildId, new byte[32]);
      try (GroupFileWriter w = new GroupFileWriter(file, header)) {
        for (IndexRecord r : records) {
          w.append(r);
        }
        w.finish();
      }
      bytes += Files.size(file);
      entries += records.size();
      groups++;
    }
    List<BuildInfo.Attribute> attributes = new ArrayList<>();
    for (KeyAttribute a : schema.storedAttributes()) {
      attributes.add(new BuildInfo.Attribute(a.name(), a.type().name(), List.of()));
    }
    BuildInfo info = new BuildInfo(1, buildId, 0, schema.table(), schema.indexName(), schema.groupAttribute(),
        schema.groupType().name(), attributes, new BuildInfo.Counts(entries, entries, groups, 0, 0, 0, 0, 0));
    Files.writeString(dir.resolve(IndexLayout.BUILD_INFO), info.toJson(), StandardCharsets.UTF_8);
    layout.publish(buildId);
    return bytes;
  }
}
