package io.pagemark.server.http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BuildsTest {
  /** A store whose current build and failures the test sets. */
  static final class Store implements Builds.Opener {
    String current = "b1";
    Set<String> held = new HashSet<>(Set.of("b1"));
    boolean down;
    final List<FakeIndex> opened = new ArrayList<>();

    @Override
    public Index open(String spec, String buildId) throws IOException {
      if (down) {
        throw new IOException("store down");
      }
      String id = buildId == null ? current : buildId;
      if (!held.contains(id)) {
        throw new IOException("build " + id + " not found");
      }
      FakeIndex i = new FakeIndex(id);
      opened.add(i);
      return i;
    }
  }

  static final class FakeIndex implements Index {
    final String id;
    boolean closed;

    FakeIndex(String id) {
      this.id = id;
    }

    @Override
    public String buildId() {
      return id;
    }

    @Override
    public KeyType groupType() {
      return KeyType.S;
    }

    @Override
    public GroupPages group(KeyValue key) throws GroupNotFoundException {
      throw new GroupNotFoundException("none");
    }

    @Override
    public String groupAttribute() {
      return "G";
    }

    @Override
    public String sortAttribute() {
      return "S";
    }

    @Override
    public List<KeyValue> groups() {
      return List.of();
    }

    @Override
    public void close() {
      if (closed) {
        throw new IllegalStateException("closed twice");
      }
      closed = true;
    }
  }

  final Store store = new Store();
  final AtomicLong clock = new AtomicLong();
  final Builds builds = new Builds("spec", store, 1000, clock::get);

  @Test
  void aNewCurrentBuildIsPickedUpAfterTheRefreshIntervalAndTheOldOneClosedWhenItsLastReaderEnds()
      throws Exception {
    Builds.Lease first = builds.current();
    assertThat(first.index().buildId(), equalTo("b1"));
    store.current = "b2";
    store.held.add("b2");
    clock.set(999);
    try (Builds.Lease stillB1 = builds.current()) {
      assertThat("before the interval the build is not looked up again", stillB1.index().buildId(), equalTo("b1"));
    }
    clock.set(1000);
    try (Builds.Lease b2 = builds.current()) {
      assertThat(b2.index().buildId(), equalTo("b2"));
    }
    FakeIndex b1 = store.opened.get(0);
    assertThat("a request still reads b1", b1.closed, is(false));
    assertThat(first.index().buildId(), equalTo("b1"));
    first.close();
    assertThat(b1.closed, is(true));
    clock.set(5000);
    try (Builds.Lease b2 = builds.current()) {
      assertThat(b2.index().buildId(), equalTo("b2"));
    }
    assertThat("an unchanged build is opened to check, then closed", store.opened.get(2).closed, is(true));
    assertThat(store.opened.get(1).closed, is(false));
    builds.close();
    assertThat(store.opened.get(1).closed, is(true));
  }

  @Test
  void aFailedRefreshKeepsServingTheBuildItHas() throws Exception {
    builds.current().close();
    store.down = true;
    clock.set(10_000);
    try (Builds.Lease l = builds.current()) {
      assertThat(l.index().buildId(), equalTo("b1"));
    }
  }

  @Test
  void noCurrentBuildIsAnError() {
    store.down = true;
    IOException e = assertThrows(IOException.class, builds::current);
    assertThat(e.getMessage(), equalTo("store down"));
  }

  @Test
  void pinnedBuildsAreCachedEvictedLeastRecentlyUsedAndUnknownOnesNamed() throws Exception {
    for (int i = 0; i < Builds.PINNED_BUILDS + 1; i++) {
      store.held.add("p" + i);
    }
    Builds.Lease held = builds.pinned("p0");
    try (Builds.Lease again = builds.pinned("p0")) {
      assertThat(again.index(), is(held.index()));
    }
    for (int i = 1; i <= Builds.PINNED_BUILDS; i++) {
      builds.pinned("p" + i).close();
    }
    FakeIndex p0 = (FakeIndex) held.index();
    assertThat("evicted but still read", p0.closed, is(false));
    held.close();
    assertThat(p0.closed, is(true));

    Builds.UnknownBuildException unknown =
        assertThrows(Builds.UnknownBuildException.class, () -> builds.pinned("nope"));
    assertThat(unknown.getMessage(), containsString("build \"nope\" is not in the index"));
    assertThat(unknown.getMessage(), containsString("the current build is b1"));
    store.down = true;
    clock.set(10_000);
    builds.close();
    Builds fresh = new Builds("spec", store, 1000, clock::get);
    assertThrows(IOException.class, () -> fresh.pinned("nope"));
  }
}
