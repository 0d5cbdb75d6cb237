package io.pagemark.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.order.TieOrder;
import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.transforms.sink.file.WriteIndexFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BuildIndex} with {@link WriteIndexFiles} on the DirectRunner, into temporary directories: the build is
 * published with every entry, in order, under paths derived from (never made of) the group keys, its counts add up,
 * and the same input gives byte-identical files however the groups were split into parts.
 */
@ExtendWith(TestPipelineExtension.class)
class BuildIndexTest {
  static final long T0 = 1_700_000_000_000L;
  static final List<IndexEntry> ENTRIES = TestEntries.of(KeyType.S);

  static PCollection<IndexEntry> entries(TestPipeline p) {
    return p.apply("Entries", Create.of(ENTRIES).withCoder(IndexEntryCoder.of()));
  }

  @Test
  void aBuildIsPublishedWithEveryGroupInOrderAndCountsThatAddUp(TestPipeline p, @TempDir Path root)
      throws IOException {
    PCollection<Published> published = entries(p).apply(BuildIndex.of(TestEntries.STRINGS)
        .withSink(WriteIndexFiles.to(root.toString())).withBuild("b1", T0).withMaxPartEntries(250));
    String sink = "files at " + root.toAbsolutePath().normalize();
    long runs = TestEntries.byGroup(ENTRIES).values().stream()
        .flatMap(g -> TestEntries.wholeGroup(g, TieOrder.UNKNOWN).stream())
        .filter(r -> r.tiePosition() == 0 && r.runLength() > 1).count();
    PAssert.thatSingleton(published).isEqualTo(new Published(sink, "b1", 3, ENTRIES.size(),
        String.format("published build b1 to %s: %,d items scanned, %,d entries in 3 groups, 0 skipped (no group or"
            + " sort key), 0 dead letters, %,d runs of equal sort keys", sink, ENTRIES.size(), ENTRIES.size(), runs)));
    p.run().waitUntilFinish();

    IndexLayout layout = new IndexLayout(root);
    assertThat(layout.currentBuildId(), equalTo("b1"));
    Path build = layout.build("b1");
    BuildInfo.Counts counts = BuildInfo.read(build.resolve(IndexLayout.BUILD_INFO)).counts();
    assertThat(counts, equalTo(new BuildInfo.Counts(ENTRIES.size(), ENTRIES.size(), 3, 0, 0, 0, runs, runs)));
    assertThat(Files.readAllLines(build.resolve(IndexLayout.MANIFEST)).size(), is(3));
    assertThat("the part files are gone", Files.exists(build.resolve("parts")), is(false));
    for (Map.Entry<KeyValue, List<IndexEntry>> g : TestEntries.byGroup(ENTRIES).entrySet()) {
      Path file = GroupPaths.resolve(build, g.getKey());
      assertThat(file.toString(), file.startsWith(build), is(true));
      assertThat(records(file), equalTo(TestEntries.wholeGroup(g.getValue(), TieOrder.UNKNOWN)));
    }
    try (Stream<Path> files = Files.walk(root)) {
      assertThat("nothing outside the build but CURRENT", files.filter(Files::isRegularFile)
          .filter(f -> !f.startsWith(build) && !f.getFileName().toString().equals(IndexLayout.CURRENT)).toList(),
          empty());
    }
  }

  @Test
  void theSameEntriesGiveByteIdenticalFilesWhateverThePartSize(TestPipeline p, @TempDir Path dir)
      throws IOException {
    Path split = dir.resolve("split");
    Path whole = dir.resolve("whole");
    PCollection<IndexEntry> entries = entries(p);
    entries.apply("Build in parts of 100", BuildIndex.of(TestEntries.STRINGS)
        .withSink(WriteIndexFiles.to(split.toString())).withBuild("b1", T0).withMaxPartEntries(100));
    entries.apply("Build in one part per group", BuildIndex.of(TestEntries.STRINGS)
        .withSink(WriteIndexFiles.to(whole.toString())).withBuild("b1", T0));
    p.run().waitUntilFinish();

    List<Path> files = filesUnder(new IndexLayout(whole).build("b1"));
    assertThat(files.size(), is(5)); // three groups, the manifest and build.json
    assertThat(filesUnder(new IndexLayout(split).build("b1")), equalTo(files));
    for (Path f : files) {
      assertThat(f.toString(), Files.mismatch(new IndexLayout(split).build("b1").resolve(f),
          new IndexLayout(whole).build("b1").resolve(f)), is(-1L));
    }
    assertThat(Files.size(GroupPaths.resolve(new IndexLayout(whole).build("b1"), KeyValue.ofString("big"))),
        greaterThan(10_000L));
  }

  /** A source that hands over its entries in pages (lists) gets the same build as one that hands them one by one. */
  @Test
  void entriesInPagesGiveTheSameFilesAsEntriesOneByOne(TestPipeline p, @TempDir Path dir) throws IOException {
    Path single = dir.resolve("single");
    Path paged = dir.resolve("paged");
    entries(p).apply("Build of single entries", BuildIndex.of(TestEntries.STRINGS)
        .withSink(WriteIndexFiles.to(single.toString())).withBuild("b1", T0).withMaxPartEntries(100));
    List<List<IndexEntry>> pages = new ArrayList<>();
    for (int i = 0; i < ENTRIES.size(); i += 37) {
      pages.add(new ArrayList<>(ENTRIES.subList(i, Math.min(ENTRIES.size(), i + 37))));
    }
    p.apply("Pages", Create.of(pages).withCoder(ListCoder.of(IndexEntryCoder.of())))
        .apply("Build of pages", BuildIndex.of(TestEntries.STRINGS)
            .withSink(WriteIndexFiles.to(paged.toString())).withBuild("b1", T0).withMaxPartEntries(100)
            .fromBatches());
    p.run().waitUntilFinish();

    Path singleBuild = new IndexLayout(single).build("b1");
    Path pagedBuild = new IndexLayout(paged).build("b1");
    List<Path> files = filesUnder(singleBuild);
    assertThat(files.size(), is(5)); // three groups, the manifest and build.json
    assertThat(filesUnder(pagedBuild), equalTo(files));
    for (Path f : files) {
      assertThat(f.toString(), Files.mismatch(singleBuild.resolve(f), pagedBuild.resolve(f)), is(-1L));
    }
    assertThat("every entry counted, not every page",
        BuildInfo.read(pagedBuild.resolve(IndexLayout.BUILD_INFO)).counts().entries(), is((long) ENTRIES.size()));
  }

  @Test
  void aBuildWithoutASinkOrWithBadSettingsIsRefusedNamingTheSetting(TestPipeline p) {
    p.enableAbandonedNodeEnforcement(false);
    PCollection<IndexEntry> entries = entries(p);
    assertThat(assertThrows(IllegalArgumentException.class, () -> entries.apply(BuildIndex.of(TestEntries.STRINGS)))
        .getMessage(), equalTo("BuildIndex needs at least one sink: withSink(...)"));
    BuildIndex b = BuildIndex.of(TestEntries.STRINGS);
    assertThat(assertThrows(IllegalArgumentException.class, () -> b.withKeepBuilds(0)).getMessage(),
        equalTo("keepBuilds must be at least 1, not 0"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> b.withMaxPartEntries(-5)).getMessage(),
        equalTo("maxPartEntries must be at least 1, not -5"));
    assertThat(assertThrows(IllegalArgumentException.class, () -> b.withBuild("../b1", T0)).getMessage(),
        startsWith("build id"));
    assertThat(b.withBuild("b9", T0).buildId(), equalTo("b9"));
    assertThat("withX leaves the original as it was", b.buildId(), not(equalTo("b9")));
  }

  static List<IndexRecord> records(Path groupFile) throws IOException {
    List<IndexRecord> records = new ArrayList<>();
    try (GroupFile f = GroupFile.open(groupFile)) {
      f.verify();
      f.forEachRecord(records::add);
    }
    return records;
  }

  static List<Path> filesUnder(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).map(dir::relativize).sorted().toList();
    }
  }
}
