package io.pagemark.lookup.file;

import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One build of a file index, opened for lookups. {@link #open(Path)} resolves the index's {@code CURRENT} build once,
 * so every lookup through this object sees that one build, even while newer builds are published. Thread-safe.
 * Applications open it through {@link io.pagemark.lookup.Indexes#open(String)}.
 */
final class FileIndex implements Index {
  private final Path buildDir;
  private final BuildInfo info;

  private FileIndex(Path buildDir, BuildInfo info) {
    this.buildDir = buildDir;
    this.info = info;
  }

  /** Opens the index's current build. */
  static FileIndex open(Path root) throws IOException {
    IndexLayout layout = new IndexLayout(root);
    return open(root, layout.currentBuildId());
  }

  /** Opens a given build of the index. */
  static FileIndex open(Path root, String buildId) throws IOException {
    IndexLayout layout = new IndexLayout(root);
    return new FileIndex(layout.build(buildId), layout.buildInfo(buildId));
  }

  @Override
  public String buildId() {
    return info.buildId();
  }

  @Override
  public KeyType groupType() {
    return KeyType.fromDynamoName(info.groupType());
  }

  /** {@inheritDoc} Throws {@link IndexFormatException} when the group's file is damaged. */
  @Override
  public GroupPages group(KeyValue key) throws IOException, GroupNotFoundException {
    if (java.util.Objects.requireNonNull(key, "key").type() != groupType()) {
      throw new IllegalArgumentException(
          "group keys of this index are of type " + groupType() + ", not " + key.type());
    }
    Path file = GroupPaths.resolve(buildDir, key);
    if (!Files.exists(file)) {
      throw new GroupNotFoundException(
          "group " + key + " is not in build " + info.buildId() + " of the index");
    }
    GroupFile f = GroupFile.open(file);
    if (!f.header().groupKey().equals(key) || !info.holdsFilesOf(f.header().buildId())) {
      f.close();
      throw new IndexFormatException(file, "holds group " + f.header().groupKey() + " of build "
          + f.header().buildId() + ", expected " + key + " of build " + info.buildId());
    }
    return new GroupPages(new FileGroup(f));
  }

  @Override
  public String groupAttribute() {
    return info.groupAttribute();
  }

  @Override
  public String sortAttribute() {
    return info.attributes().get(0).name();
  }

  /** {@inheritDoc} Read from the build's manifest. */
  @Override
  public List<KeyValue> groups() throws IOException {
    ObjectMapper json = new ObjectMapper();
    List<KeyValue> groups = new ArrayList<>();
    KeyType type = groupType();
    Path manifest = buildDir.resolve(IndexLayout.MANIFEST);
    try (BufferedReader r = Files.newBufferedReader(manifest, StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) {
        JsonNode g = json.readTree(line).get("group");
        if (g == null || g.get(type.name()) == null) {
          throw new IndexFormatException(manifest, "has a line without a group of type " + type + ": " + line);
        }
        groups.add(KeyValue.parse(type, g.get(type.name()).asText()));
      }
    }
    return groups;
  }

  @Override
  public void close() {}
}
