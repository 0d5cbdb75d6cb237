package io.pagemark.format;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test fixture: an index directory as backfill lays it out (partial build, group files, {@code build.json},
 * atomic publish), written with the format classes alone.
 */
public final class TestIndex {
  private final Path root;
  private final String groupAttribute;
  private final String groupType;
  private final List<KeyAttribute> attributes;
  private final Map<KeyValue, List<IndexRecord>> groups = new LinkedHashMap<>();

  public TestIndex(Path root, String groupAttribute, String groupType, List<KeyAttribute> attributes) {
    this.root = root;
    this.groupAttribute = groupAttribute;
    this.groupType = groupType;
    this.attributes = List.copyOf(attributes);
  }

  public TestIndex group(KeyValue key, List<IndexRecord> records) {
    groups.put(key, List.copyOf(records));
    return this;
  }

  /** Writes and publishes a build; returns its directory. */
  public Path publish(String buildId, long timeMillis) throws IOException {
    IndexLayout layout = new IndexLayout(root);
    Path partial = layout.partialBuild(buildId);
    long entries = 0;
    for (Map.Entry<KeyValue, List<IndexRecord>> g : groups.entrySet()) {
      GroupFiles.write(GroupPaths.resolve(partial, g.getKey()), groupAttribute, g.getKey(), attributes, buildId,
          timeMillis, g.getValue());
      entries += g.getValue().size();
    }
    List<BuildInfo.Attribute> stored = new ArrayList<>();
    for (KeyAttribute a : attributes) {
      stored.add(new BuildInfo.Attribute(a.name(), a.type().name(), List.of()));
    }
    BuildInfo info = new BuildInfo(1, buildId, timeMillis, "table", "GSI2", groupAttribute, groupType, stored,
        new BuildInfo.Counts(entries, entries, groups.size(), 0, 0, 0, 0, 0));
    Files.createDirectories(partial);
    Files.writeString(partial.resolve(IndexLayout.BUILD_INFO), info.toJson(), StandardCharsets.UTF_8);
    layout.publish(buildId);
    return layout.build(buildId);
  }
}
