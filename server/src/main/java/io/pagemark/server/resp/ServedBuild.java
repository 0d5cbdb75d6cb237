package io.pagemark.server.resp;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One published build of an index, as the server serves it, opened through {@link Indexes#open(String, String)}. A
 * file index's group files are read directly ({@link FileGroupView}, its metadata from the build's info); an index of
 * any other store is read through the lookup library ({@link PagesGroupView}) and is <em>live</em>: it answers from
 * the store as it is when a group is opened, so loops open its groups again for every batch of requests. Shared by the
 * event loops; a loop that serves it, and every long reply still reading it, holds it, and the last to let go of a
 * build that is no longer current closes it.
 */
final class ServedBuild {
  private final String spec;
  private final Index index;
  /** The build's directory and info; null for a live index of another store. */
  private final Path dir;
  private final BuildInfo info;
  private final List<KeyAttribute> attributes;
  private final AtomicInteger holders = new AtomicInteger(1); // the server's own hold while it is current
  private volatile Groups groups;

  private ServedBuild(String spec, Index index, Path dir, BuildInfo info) {
    this.spec = spec;
    this.index = index;
    this.dir = dir;
    this.info = info;
    this.attributes = info == null ? null
        : info.attributes().stream().map(BuildInfo.Attribute::toKeyAttribute).toList();
  }

  /** Opens build {@code id} of the file index at {@code root} ({@code spec} is how the user named it). */
  static ServedBuild open(String spec, Path root, String id) throws IOException {
    Index index = Indexes.open(spec, id);
    try {
      Path dir = new IndexLayout(root).build(id);
      return new ServedBuild(spec, index, dir, BuildInfo.read(dir.resolve(IndexLayout.BUILD_INFO)));
    } catch (IOException | RuntimeException e) {
      index.close();
      throw e;
    }
  }

  /** Opens an index of a store other than files, live (see the class comment). */
  static ServedBuild openLive(String spec) throws IOException {
    return new ServedBuild(spec, Indexes.open(spec), null, null);
  }

  /** Whether this is a live index of another store, whose groups loops open again for every batch of requests. */
  boolean live() {
    return dir == null;
  }

  /** Whether ZADD, ZREM and PM.COMMIT can stage changes for this index (a file index's write-ahead log). */
  boolean writable() {
    return dir != null;
  }

  /** Groups of the build: the file index's count, or those a live index lists now (-1 when it cannot list them). */
  long groupCount() {
    if (info != null) {
      return info.counts().groups();
    }
    try {
      return groups().size();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  String id() {
    return index.buildId();
  }

  KeyType groupType() {
    return index.groupType();
  }

  String groupAttribute() {
    return index.groupAttribute();
  }

  /**
   * The stored attributes of every entry, the sort key first (what a WAL segment of this index declares); null for a
   * live index.
   */
  List<KeyAttribute> attributes() {
    return attributes;
  }

  BuildInfo info() {
    return info;
  }

  String spec() {
    return spec;
  }

  /**
   * The group a RESP key names (text for S, decimal for N, base64 for B), or null when the key cannot be one of this
   * index's group keys.
   */
  KeyValue groupKey(byte[] key) {
    try {
      switch (groupType()) {
        case S:
          return KeyValue.of(KeyType.S, key); // bytes as given: a key that is not UTF-8 names no group
        case N:
          return KeyValue.ofNumber(new String(key, StandardCharsets.US_ASCII));
        case B:
          return KeyValue.ofBinary(Base64.getDecoder().decode(key));
        default:
          throw new AssertionError(groupType());
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Opens a group for one event loop, or returns null when the build has no such group. */
  GroupView open(KeyValue group, FileGroupView.Buffers buffers) throws IOException {
    if (dir == null) {
      try {
        return new PagesGroupView(index.group(group));
      } catch (GroupNotFoundException e) {
        return null;
      }
    }
    Path file = GroupPaths.resolve(dir, group);
    if (!Files.exists(file)) {
      return null;
    }
    return FileGroupView.open(file, group, info::holdsFilesOf, buffers);
  }

  /** Entries of the whole build; -1 for a live index, which does not count them. */
  long entries() {
    return info == null ? -1 : info.counts().entries();
  }

  /** Every group, in the order {@code SCAN} walks them (read on first use; for a live index, at every call). */
  Groups groups() throws IOException {
    if (live()) {
      return Groups.of(index.groups());
    }
    Groups g = groups;
    if (g == null) {
      synchronized (this) {
        g = groups;
        if (g == null) {
          g = Groups.of(index.groups());
          groups = g;
        }
      }
    }
    return g;
  }

  /** Takes a hold on this build; false when it was already closed (the caller then takes the current build). */
  boolean hold() {
    for (int h = holders.get(); h > 0; h = holders.get()) {
      if (holders.compareAndSet(h, h + 1)) {
        return true;
      }
    }
    return false;
  }

  /** Lets go of a hold; the last one closes the build. */
  void release() {
    if (holders.decrementAndGet() == 0) {
      try {
        index.close();
      } catch (IOException e) {
        // a file index holds nothing open; a live index's client is let go with the process
      }
    }
  }

  /**
   * The groups of a build in {@code SCAN} order: by the first 63 bits of the SHA-256 that also names their files, so
   * that a cursor (the position to go on from) stays meaningful when a newer build adds or removes groups: a group
   * present from the first call to the last is returned at least once, as Redis promises.
   */
  static final class Groups {
    final long[] positions;
    final KeyValue[] keys;

    private Groups(long[] positions, KeyValue[] keys) {
      this.positions = positions;
      this.keys = keys;
    }

    static Groups of(List<KeyValue> groups) {
      List<Object[]> sorted = new ArrayList<>(groups.size());
      for (KeyValue g : groups) {
        sorted.add(new Object[] {position(g), g});
      }
      sorted.sort((a, b) -> Long.compare((Long) a[0], (Long) b[0]));
      long[] positions = new long[sorted.size()];
      KeyValue[] keys = new KeyValue[sorted.size()];
      for (int i = 0; i < positions.length; i++) {
        positions[i] = (Long) sorted.get(i)[0];
        keys[i] = (KeyValue) sorted.get(i)[1];
      }
      return new Groups(positions, keys);
    }

    int size() {
      return keys.length;
    }

    /** The index of the first group at or after a cursor position. */
    int from(long cursor) {
      int i = Arrays.binarySearch(positions, cursor);
      if (i < 0) {
        return -i - 1;
      }
      while (i > 0 && positions[i - 1] == cursor) {
        i--;
      }
      return i;
    }

    /** A group's SCAN position: 63 bits of the hash of its type and canonical bytes (never 0). */
    static long position(KeyValue group) {
      try {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        sha.update(group.type().code());
        byte[] h = sha.digest(group.sortableBytes());
        long v = 0;
        for (int i = 0; i < 8; i++) {
          v = (v << 8) | (h[i] & 0xFF);
        }
        v >>>= 1;
        return v == 0 ? 1 : v;
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }
}
