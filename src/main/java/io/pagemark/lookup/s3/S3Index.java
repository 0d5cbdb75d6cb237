package io.pagemark.lookup.s3;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.format.RecordSource;
import io.pagemark.format.s3.S3IndexStore;
import io.pagemark.format.s3.S3Location;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.RankedGroup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One build of a file index kept in S3, opened for lookups: {@code CURRENT} is resolved once, so every lookup through
 * this object sees that build while newer ones are published. Each group's header is read once (one GET of the
 * object's first 4 KiB, which also gives its length) and kept in a bounded cache; after that every record is one
 * ranged GET of exactly its bytes, so a page start costs at most three GETs. Thread-safe.
 */
final class S3Index implements Index {
  /** Groups whose headers are kept; the least recently used is dropped beyond this. */
  static final int CACHED_GROUPS = 1024;

  private final S3IndexStore store;
  private final BuildInfo info;
  private final Map<KeyValue, GroupFile> cache = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<KeyValue, GroupFile> eldest) {
      return size() > CACHED_GROUPS;
    }
  };

  private S3Index(S3IndexStore store, BuildInfo info) {
    this.store = store;
    this.info = info;
  }

  /** Opens the current build (buildId null) or a given one; the message of any failure says what to do. */
  static S3Index open(String spec, String buildId) throws IOException {
    S3IndexStore store = new S3IndexStore(S3Location.parse(spec));
    try {
      String id = buildId != null ? IndexLayout.checkBuildId(buildId) : store.currentBuildId();
      return new S3Index(store, store.buildInfo(id));
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
  }

  S3IndexStore store() {
    return store;
  }

  @Override
  public String buildId() {
    return info.buildId();
  }

  @Override
  public KeyType groupType() {
    return KeyType.fromDynamoName(info.groupType());
  }

  @Override
  public String groupAttribute() {
    return info.groupAttribute();
  }

  @Override
  public String sortAttribute() {
    return info.attributes().get(0).name();
  }

  /** {@inheritDoc} Throws {@link IndexFormatException} when the group's object is damaged or foreign. */
  @Override
  public GroupPages group(KeyValue key) throws IOException, GroupNotFoundException {
    if (key.type() != groupType()) {
      throw new IllegalArgumentException(
          "group keys of this index are of type " + groupType() + ", not " + key.type());
    }
    GroupFile file;
    synchronized (cache) {
      file = cache.get(key);
    }
    if (file == null) {
      file = openGroup(key);
      synchronized (cache) {
        cache.put(key, file);
      }
    }
    return new GroupPages(new CachedGroup(file));
  }

  private GroupFile openGroup(KeyValue key) throws IOException, GroupNotFoundException {
    String relative = S3IndexStore.buildPath(info.buildId(), GroupPaths.relativePath(key));
    RecordSource source = store.openIfExists(relative);
    if (source == null) {
      throw new GroupNotFoundException("group " + key + " is not in build " + info.buildId() + " of the index at "
          + store.location());
    }
    GroupFile f = GroupFile.open(source);
    if (!f.header().groupKey().equals(key) || !info.holdsFilesOf(f.header().buildId())) {
      f.close();
      throw new IndexFormatException(f.name(), "holds group " + f.header().groupKey() + " of build "
          + f.header().buildId() + ", expected " + key + " of build " + info.buildId());
    }
    return f;
  }

  /** {@inheritDoc} Read from the build's manifest (one GET). */
  @Override
  public List<KeyValue> groups() throws IOException {
    String relative = S3IndexStore.buildPath(info.buildId(), IndexLayout.MANIFEST);
    String manifest = new String(store.read(relative), StandardCharsets.UTF_8);
    ObjectMapper json = new ObjectMapper();
    KeyType type = groupType();
    List<KeyValue> groups = new ArrayList<>();
    for (String line : manifest.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode g = json.readTree(line).get("group");
      if (g == null || g.get(type.name()) == null) {
        throw new IndexFormatException(store.location().uri(relative),
            "has a line without a group of type " + type + ": " + line);
      }
      groups.add(KeyValue.parse(type, g.get(type.name()).asText()));
    }
    return groups;
  }

  @Override
  public void close() {
    store.close();
  }

  @Override
  public String toString() {
    return store.location() + " build " + info.buildId();
  }

  /** A cached group file as a {@link RankedGroup}; closing it leaves the file in the cache. */
  private record CachedGroup(GroupFile file) implements RankedGroup {
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
    public void close() {}
  }
}
