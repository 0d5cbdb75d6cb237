package io.pagemark.server.resp;

import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The groups one event loop has open in the build it serves: at most {@code max} views (open files), least recently
 * used closed first, and the keys that name no group remembered as well. A view that a long reply still reads is held
 * and closed only when the reply lets go. Used by the loop's thread only.
 */
final class LoopGroups {
  private static final GroupView MISSING = new Missing();

  private final int max;
  private final FileGroupView.Buffers buffers = new FileGroupView.Buffers();
  private final LinkedHashMap<Key, GroupView> open;
  /** Views held by long replies, with their hold counts; those no longer in {@link #open} close on release. */
  private final IdentityHashMap<GroupView, Integer> held = new IdentityHashMap<>();
  private ServedBuild build;
  private byte[] lastKey;
  private GroupView lastView;

  LoopGroups(int max) {
    this.max = max;
    this.open = new LinkedHashMap<>(64, 0.75f, true);
  }

  ServedBuild build() {
    return build;
  }

  /** Serves {@code next} from now on; closes the views of the previous build that nothing holds. */
  void serve(ServedBuild next) {
    if (next == build) {
      return;
    }
    for (GroupView v : open.values()) {
      if (!held.containsKey(v)) {
        closeQuietly(v);
      }
    }
    open.clear();
    lastKey = null;
    lastView = null;
    ServedBuild previous = build;
    build = next;
    if (previous != null) {
      previous.release();
    }
  }

  /**
   * A batch of requests begins: a live index's groups are opened again, so that its counts and page starts are
   * the store's as it is now (a file build never changes, and its views stay open).
   */
  void newBatch() {
    if (build == null || !build.live() || open.isEmpty()) {
      return;
    }
    for (GroupView v : open.values()) {
      if (!held.containsKey(v)) {
        closeQuietly(v);
      }
    }
    open.clear();
    lastKey = null;
    lastView = null;
  }

  /** The group a key names in the served build, or null when there is none. */
  GroupView get(byte[] key) throws IOException {
    if (lastKey != null && Arrays.equals(lastKey, key)) {
      return lastView == MISSING ? null : lastView;
    }
    Key k = new Key(key);
    GroupView v = open.get(k);
    if (v == null) {
      KeyValue group = build.groupKey(key);
      v = group == null ? null : build.open(group, buffers);
      if (v == null) {
        v = MISSING;
      }
      open.put(k, v);
      if (open.size() > max) {
        evictEldest();
      }
    }
    lastKey = key;
    lastView = v;
    return v == MISSING ? null : v;
  }

  private void evictEldest() {
    Iterator<Map.Entry<Key, GroupView>> it = open.entrySet().iterator();
    GroupView v = it.next().getValue();
    it.remove();
    if (v == lastView) {
      lastKey = null;
      lastView = null;
    }
    if (!held.containsKey(v)) {
      closeQuietly(v);
    }
  }

  /** Keeps a view open for a long reply (and its build, for the reply's duration). */
  void hold(GroupView v) {
    held.merge(v, 1, Integer::sum);
  }

  /** Ends a hold; closes the view if it was evicted or its build replaced meanwhile. */
  void release(GroupView v) {
    Integer n = held.get(v);
    if (n == null) {
      return;
    }
    if (n > 1) {
      held.put(v, n - 1);
      return;
    }
    held.remove(v);
    if (!open.containsValue(v)) {
      closeQuietly(v);
    }
  }

  /** Closes every view (the loop is stopping). */
  void closeAll() {
    open.values().forEach(LoopGroups::closeQuietly);
    held.keySet().forEach(LoopGroups::closeQuietly);
    open.clear();
    held.clear();
    if (build != null) {
      build.release();
      build = null;
    }
  }

  int openGroups() {
    return (int) open.values().stream().filter(v -> v != MISSING).count();
  }

  private static void closeQuietly(GroupView v) {
    try {
      v.close();
    } catch (IOException e) {
      // a read-only file: nothing is lost
    }
  }

  /** A key's bytes as a map key. */
  private static final class Key {
    final byte[] bytes;
    final int hash;

    Key(byte[] bytes) {
      this.bytes = bytes;
      this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key && Arrays.equals(bytes, ((Key) o).bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** The cached answer "no such group". */
  private static final class Missing implements GroupView {
    @Override
    public KeyValue group() {
      throw new UnsupportedOperationException();
    }

    @Override
    public long count() {
      return 0;
    }

    @Override
    public Members members() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void range(long lo, long hi, boolean downwards) {}

    @Override
    public void endRange() {}

    @Override
    public int member(long rank, Scratch out) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long ascendingAt(long position) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long descendingOf(long rank) {
      throw new UnsupportedOperationException();
    }

    @Override
    public long rankOf(java.util.List<KeyValue> keys) {
      return -1;
    }

    @Override
    public io.pagemark.lookup.GroupPages pages() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }
}
