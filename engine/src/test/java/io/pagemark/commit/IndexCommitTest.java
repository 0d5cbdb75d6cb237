package io.pagemark.commit;

import io.pagemark.change.ChangeScenario;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.change.Records;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.order.TieOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class IndexCommitTest {
  static final long T0 = 1_700_000_000_000L;

  /** Base build after {@code baseAt} records; the WAL holds records from {@code walFrom} on, shuffled, 10% twice. */
  static ChangeScenario prepare(Path root, long seed, int records, int baseAt, int walFrom) throws IOException {
    ChangeScenario s = new ChangeScenario(seed, records, 120, T0);
    TestIndex.writeBuild(root, "b0", s.millis(baseAt), Records.SCHEMA, s.entriesAfter(baseAt), TestIndex.FAKE_DYNAMO);
    ChangeScenario.appendShuffled(root, s.changes(walFrom, records), 0.1, new Random(seed));
    return s;
  }

  /** Asserts that every group of the current build holds exactly what a fresh build of the reference would. */
  public static void assertIndexIs(Path root, Map<KeyValue, List<IndexEntry>> expected, TieOrder ties) throws IOException {
    for (Map.Entry<KeyValue, List<IndexEntry>> g : expected.entrySet()) {
      List<IndexRecord> want = TestIndex.records(g.getValue(), ties);
      List<IndexRecord> got = TestIndex.groupRecords(root, g.getKey());
      assertThat("group " + g.getKey(), TestIndex.describe(got), equalTo(TestIndex.describe(want)));
    }
    try (Index index = Indexes.open(root.toString())) {
      long entries = expected.values().stream().mapToLong(List::size).sum();
      BuildInfo.Counts counts = new IndexLayout(root).buildInfo(index.buildId()).counts();
      assertThat(counts.entries(), is(entries));
      assertThat(counts.groups(), is(expected.values().stream().filter(l -> !l.isEmpty()).count()));
    }
    assertThat("WAL segments left", new Wal(root).pendingGroupDirs(), empty());
  }

  @Test
  void aCommitMakesTheIndexOfTheTableAfterTheLastChange(@TempDir Path root) throws IOException {
    ChangeScenario s = prepare(root, 1, 3000, 1500, 1000);
    IndexCommit.Result r = IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    assertThat(r.buildId(), not(equalTo("b0")));
    assertThat(r.stale(), greaterThan(0L)); // duplicates
    assertThat(r.applied() + r.stale(), is(r.changes()));
    assertIndexIs(root, s.entriesAfter(3000), TestIndex.FAKE_DYNAMO);
    IndexCommit.Result again = IndexCommit.of(root).run();
    assertThat(again.nothingToCommit(), is(true));
  }

  @Test
  void unchangedGroupsAreLinkedNotCopiedAndStayReadable(@TempDir Path root) throws IOException {
    ChangeScenario s = new ChangeScenario(2, 400, 60, T0);
    TestIndex.writeBuild(root, "b0", s.millis(400), Records.SCHEMA, s.entriesAfter(400), TestIndex.FAKE_DYNAMO);
    List<IndexChange> onlyHot = s.changes(0, 400).stream()
        .filter(c -> c.group().text().equals("hot")).collect(Collectors.toList());
    ChangeScenario.appendShuffled(root, onlyHot, 0, new Random(2));
    IndexCommit.Result r = IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    assertThat(r.groupsRewritten(), is(1L));
    assertThat(r.groupsLinked(), is((long) s.entriesAfter(400).size() - 1));
    assertIndexIs(root, s.entriesAfter(400), TestIndex.FAKE_DYNAMO);
    Path oldA = root.resolve("builds/b0").resolve(io.pagemark.format.GroupPaths.relativePath(KeyValue.ofString("a")));
    Path newA = root.resolve("builds").resolve(r.buildId())
        .resolve(io.pagemark.format.GroupPaths.relativePath(KeyValue.ofString("a")));
    assertThat(Files.isSameFile(oldA, newA), is(true));
    try (Index index = Indexes.open(root.toString())) {
      BuildInfo info = new IndexLayout(root).buildInfo(index.buildId());
      assertThat(info.groupBuilds(), org.hamcrest.Matchers.containsInAnyOrder("b0", r.buildId()));
      assertThat(info.commit().baseBuild(), is("b0"));
    }
  }

  @Test
  void replaysAndLateDuplicatesChangeNothing(@TempDir Path root) throws IOException {
    ChangeScenario s = prepare(root, 3, 2000, 0, 0);
    IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    assertIndexIs(root, s.entriesAfter(2000), TestIndex.FAKE_DYNAMO);
    // the whole stream again, then stray copies of old records alone
    ChangeScenario.appendShuffled(root, s.changes(0, 2000), 0.2, new Random(4));
    IndexCommit.Result replay = IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    assertThat(replay.applied(), is(0L));
    assertIndexIs(root, s.entriesAfter(2000), TestIndex.FAKE_DYNAMO);
    ChangeScenario.appendShuffled(root, s.changes(100, 300), 0, new Random(5));
    IndexCommit.Result late = IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    assertThat(late.applied(), is(0L));
    assertIndexIs(root, s.entriesAfter(2000), TestIndex.FAKE_DYNAMO);
  }

  @Test
  void changesOlderThanTheBackfillAreInItAlready(@TempDir Path root) throws IOException {
    ChangeScenario s = new ChangeScenario(6, 300, 50, T0);
    // the backfill began an hour after the last change: every change is older than its horizon
    TestIndex.writeBuild(root, "b0", s.millis(300) + 3_600_000, Records.SCHEMA, s.entriesAfter(300),
        TestIndex.FAKE_DYNAMO);
    ChangeScenario.appendShuffled(root, s.changes(0, 150), 0, new Random(6));
    IndexCommit.Result r = IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    assertThat(r.applied(), is(0L));
    assertIndexIs(root, s.entriesAfter(300), TestIndex.FAKE_DYNAMO);
  }

  @Test
  void withoutDynamoDbChangedRunsOfEqualSortKeysAreMarkedUnknown(@TempDir Path root) throws IOException {
    ChangeScenario s = prepare(root, 7, 800, 400, 400);
    IndexCommit.of(root).run();
    long unknown = 0;
    for (Map.Entry<KeyValue, List<IndexEntry>> g : s.entriesAfter(800).entrySet()) {
      List<IndexRecord> got = TestIndex.groupRecords(root, g.getKey());
      assertThat(got.stream().map(IndexRecord::keys).sorted(java.util.Comparator.comparing(Object::toString))
              .collect(Collectors.toList()),
          equalTo(g.getValue().stream().map(IndexEntry::keys).sorted(java.util.Comparator.comparing(Object::toString))
              .collect(Collectors.toList())));
      unknown += got.stream().filter(r -> !r.runOrderKnown()).count();
    }
    assertThat(unknown, greaterThan(0L));
    try (Index index = Indexes.open(root.toString())) {
      assertThat(new IndexLayout(root).buildInfo(index.buildId()).counts().tieRunsUnresolved(), greaterThan(0L));
    }
  }

  @Test
  void oneGroupCanBeCommittedAlone(@TempDir Path root) throws IOException {
    ChangeScenario s = prepare(root, 8, 600, 0, 0);
    IndexCommit.Result r = IndexCommit.of(root).withGroup("hot").withTies(TestIndex.FAKE_DYNAMO).run();
    assertThat(r.groupsRewritten(), is(1L));
    assertThat(TestIndex.describe(TestIndex.groupRecords(root, KeyValue.ofString("hot"))),
        equalTo(TestIndex.describe(TestIndex.records(s.entriesAfter(600).get(KeyValue.ofString("hot")),
            TestIndex.FAKE_DYNAMO))));
    assertThat(new Wal(root).pendingGroupDirs().size(), is(ChangeScenario.GROUPS.size() - 1));
    IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    assertIndexIs(root, s.entriesAfter(600), TestIndex.FAKE_DYNAMO);
  }

  /** A crash of the commit, simulated by an exception thrown where the commit reaches a step. */
  static final class Crash extends RuntimeException {
    Crash(String step) {
      super("crash at " + step, null, false, false);
    }
  }

  @Test
  void aCrashAtAnyStepLosesNoChangeAndTheNextCommitFinishes(@TempDir Path dir) throws IOException {
    Path template = dir.resolve("template");
    ChangeScenario s = prepare(template, 9, 600, 300, 200);
    AtomicInteger steps = new AtomicInteger();
    copyTree(template, dir.resolve("count"));
    IndexCommit.of(dir.resolve("count")).withTies(TestIndex.FAKE_DYNAMO)
        .withSteps(step -> steps.incrementAndGet()).run();
    assertThat(steps.get(), greaterThan(20));
    for (int k = 1; k <= steps.get(); k++) {
      Path root = dir.resolve("crash-" + k);
      copyTree(template, root);
      int crashAt = k;
      AtomicInteger reached = new AtomicInteger();
      AtomicReference<String> where = new AtomicReference<>();
      try {
        IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).withSteps(step -> {
          if (reached.incrementAndGet() == crashAt) {
            where.set(step);
            throw new Crash(step);
          }
        }).run();
        throw new AssertionError("no crash at step " + k);
      } catch (Crash expected) {
        // the process died here
      }
      IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
      try {
        assertIndexIs(root, s.entriesAfter(600), TestIndex.FAKE_DYNAMO);
      } catch (AssertionError e) {
        throw new AssertionError("after a crash at step " + k + " (" + where.get() + "): " + e.getMessage(), e);
      }
      try (Stream<Path> builds = Files.list(root.resolve("builds"))) {
        assertThat("crash at " + where.get(), builds.filter(p -> p.getFileName().toString().endsWith(".partial"))
            .collect(Collectors.toList()), empty());
      }
      deleteTree(root);
    }
  }

  @Test
  void lookupsDuringCommitsSeeOneWholeBuild(@TempDir Path root) throws Exception {
    ChangeScenario s = new ChangeScenario(10, 3000, 200, T0);
    TestIndex.writeBuild(root, "b0", s.millis(0), Records.SCHEMA, s.entriesAfter(0), TestIndex.FAKE_DYNAMO);
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger reads = new AtomicInteger();
    Thread reader = new Thread(() -> {
      try {
        while (!done.get()) {
          try (Index index = Indexes.open(root.toString())) {
            long total = 0;
            for (String g : ChangeScenario.GROUPS) {
              try (GroupPages p = index.group(g)) {
                total += p.count();
                if (p.count() > 0) {
                  p.pageStart(p.pages(7), 7, io.pagemark.lookup.Order.DESC);
                }
              } catch (GroupNotFoundException e) {
                // an empty group
              }
            }
            assertThat("build " + index.buildId(), total,
                is(new IndexLayout(root).buildInfo(index.buildId()).counts().entries()));
            reads.incrementAndGet();
          }
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    reader.start();
    for (int batch = 0; batch < 10; batch++) {
      ChangeScenario.appendShuffled(root, s.changes(batch * 300, batch * 300 + 300), 0.1, new Random(batch));
      IndexCommit.of(root).withTies(TestIndex.FAKE_DYNAMO).run();
    }
    done.set(true);
    reader.join();
    if (failure.get() != null) {
      throw new AssertionError("a reader saw a broken build", failure.get());
    }
    assertThat(reads.get(), greaterThan(10));
    assertIndexIs(root, s.entriesAfter(3000), TestIndex.FAKE_DYNAMO);
    assertThat(new IndexLayout(root).builds().size(), is(3));
  }

  @Test
  void aSegmentOfAnotherIndexIsRefused(@TempDir Path root) throws IOException {
    ChangeScenario s = prepare(root, 11, 50, 0, 0);
    KeyValue g = KeyValue.ofString("a");
    new WalSegment("OTHER", g, Records.SCHEMA.storedAttributes(),
        List.of(new IndexChange(g, List.of(KeyValue.ofString("i")), new Version(1, ""), null,
            List.of(KeyValue.ofString("s"), KeyValue.ofString("i")))))
        .write(new Wal(root).groupDir(g), Wal.newSegmentName());
    IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> IndexCommit.of(root).run());
    assertThat(e.getMessage(), org.hamcrest.Matchers.containsString("was written for a different index"));
    assertThat(new IndexLayout(root).currentBuildId(), is("b0"));
    assertThat(s.records.size(), is(50));
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> st = Files.walk(from)) {
      for (Path p : (Iterable<Path>) st::iterator) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else {
          Files.copy(p, t);
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> st = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) st.sorted(java.util.Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

}
