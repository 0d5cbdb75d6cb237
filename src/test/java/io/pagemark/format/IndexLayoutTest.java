package io.pagemark.format;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Publishing a build: partial directory, then the build directory, then CURRENT; retries are harmless. */
class IndexLayoutTest {
  @TempDir Path root;

  Path partialWithAFile(IndexLayout layout, String id) throws IOException {
    Path partial = layout.partialBuild(id);
    Files.createDirectories(partial);
    Files.writeString(partial.resolve("build.json"), "{}");
    return partial;
  }

  @Test
  void publishMovesThePartialBuildIntoPlaceThenPointsCurrentAtIt() throws IOException {
    IndexLayout layout = new IndexLayout(root);
    Path partial = partialWithAFile(layout, "b1");
    assertThat(partial, equalTo(root.resolve("builds").resolve(".b1.partial")));
    assertThat(layout.builds(), empty()); // a partial build is invisible

    layout.publish("b1");

    assertThat(Files.exists(partial), is(false));
    assertThat(Files.readString(layout.build("b1").resolve("build.json")), equalTo("{}"));
    assertThat(Files.readString(root.resolve("CURRENT"), StandardCharsets.US_ASCII), equalTo("b1\n"));
    assertThat(layout.currentBuildId(), equalTo("b1"));
    assertThat(layout.builds(), contains("b1"));
    assertThat(rootEntries(), contains("CURRENT", "builds")); // no temporary file left behind
  }

  @Test
  void buildInfoReadsAPublishedBuildsBuildJsonAndChecksItNamesThatBuild() throws IOException {
    IndexLayout layout = new IndexLayout(root);
    BuildInfo.Counts counts = new BuildInfo.Counts(3, 3, 1, 0, 0, 0, 0, 0);
    for (String id : List.of("b1", "b2")) {
      Path partial = layout.partialBuild(id);
      Files.createDirectories(partial);
      BuildInfo info = new BuildInfo(1, "b1", 0, "comments", "byProduct", "PK2", "S", List.of(), counts);
      Files.writeString(partial.resolve(IndexLayout.BUILD_INFO), info.toJson());
      layout.publish(id);
    }
    assertThat(layout.buildInfo("b1").counts(), equalTo(counts));
    assertThat(layout.buildInfo("b1").indexName(), equalTo("byProduct"));
    IndexFormatException moved = assertThrows(IndexFormatException.class, () -> layout.buildInfo("b2"));
    assertThat(moved.getMessage(), containsString("says build b1 but lives in b2"));
    NoSuchFileException missing = assertThrows(NoSuchFileException.class, () -> layout.buildInfo("b3"));
    assertThat(missing.getMessage(), containsString("build b3 not found"));
    assertThrows(IllegalArgumentException.class, () -> layout.buildInfo("../b1"));
  }

  @Test
  void aRetriedPublishSucceeds() throws IOException {
    IndexLayout layout = new IndexLayout(root);
    partialWithAFile(layout, "b1");
    layout.publish("b1");
    layout.publish("b1");
    assertThat(layout.currentBuildId(), equalTo("b1"));

    // a publish that died between its two renames: the build is in place, CURRENT still names the old one
    partialWithAFile(layout, "b2");
    Files.move(layout.partialBuild("b2"), layout.build("b2"));
    assertThat(layout.currentBuildId(), equalTo("b1"));
    layout.publish("b2");
    assertThat(layout.currentBuildId(), equalTo("b2"));
    assertThat(layout.builds(), contains("b1", "b2"));
    assertThat(rootEntries(), contains("CURRENT", "builds"));
  }

  @Test
  void aNewerBuildReplacesCurrentAndOlderBuildsStay() throws IOException {
    IndexLayout layout = new IndexLayout(root);
    for (String id : List.of("20240101T000000Z-0001", "20240102T000000Z-0002")) {
      partialWithAFile(layout, id);
      layout.publish(id);
    }
    partialWithAFile(layout, "20240103T000000Z-0003"); // still being written
    assertThat(layout.currentBuildId(), equalTo("20240102T000000Z-0002"));
    assertThat(layout.builds(), contains("20240101T000000Z-0001", "20240102T000000Z-0002"));
  }

  @Test
  void nothingToPublish() {
    IndexLayout layout = new IndexLayout(root);
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> layout.publish("b9"));
    assertThat(e.getMessage(), containsString("nothing to publish for build b9"));
  }

  @Test
  void aPartialBuildDoesNotOverwriteAPublishedOne() throws IOException {
    IndexLayout layout = new IndexLayout(root);
    partialWithAFile(layout, "b1");
    layout.publish("b1");
    partialWithAFile(layout, "b1");
    IOException e = assertThrows(IOException.class, () -> layout.publish("b1"));
    assertThat(e.getMessage(), containsString("already exists"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", ".", "..", ".hidden", "../x", "a/b", "a\\b", "a b", "-", "x\u0000",
      "\u00e9", "123456789012345678901234567890123"})
  void badBuildIdsAreRefused(String id) {
    IndexLayout layout = new IndexLayout(root);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> layout.publish(id));
    assertThat(e.getMessage(), containsString("must be 1 to 32 letters, digits"));
    assertThrows(IllegalArgumentException.class, () -> layout.build(id));
    assertThrows(IllegalArgumentException.class, () -> layout.partialBuild(id));
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "12345678901234567890123456789012", "20240101T000000Z-beef", "v1.2_3-x"})
  void goodBuildIds(String id) {
    assertThat(IndexLayout.checkBuildId(id), equalTo(id));
  }

  @Test
  void currentBuildIdExplainsWhatIsMissing() throws IOException {
    IndexLayout missing = new IndexLayout(root.resolve("nope"));
    assertThat(assertThrows(NoSuchFileException.class, missing::currentBuildId).getMessage(),
        containsString("no such index directory"));
    IndexLayout empty = new IndexLayout(root);
    assertThat(assertThrows(NoSuchFileException.class, empty::currentBuildId).getMessage(),
        containsString("no published build in this directory"));
    Files.writeString(root.resolve("CURRENT"), "../../etc\n");
    assertThat(assertThrows(IndexFormatException.class, empty::currentBuildId).getMessage(),
        containsString("corrupt CURRENT pointer"));
  }

  List<String> rootEntries() throws IOException {
    try (Stream<Path> s = Files.list(root)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void syncingAPartialBuildReachesEveryFileAndDirectoryOfIt() throws IOException {
    IndexLayout layout = new IndexLayout(root);
    Path partial = partialWithAFile(layout, "b1");
    for (String f : List.of("groups/aa/bb/x.pmi", "groups/aa/bb/y.pmi", "groups/aa/cc/z.pmi", "manifest.jsonl")) {
      Path p = partial.resolve(f);
      Files.createDirectories(p.getParent());
      Files.writeString(p, f);
    }
    // 5 files; the build, groups, aa, bb and cc
    assertThat(DurableFiles.syncEach(partial), equalTo(new long[] {5, 5}));
    // where syncfs reports write-back errors (Linux 5.8 and later) one sync of the file system does it all
    DurableFiles.Synced synced = DurableFiles.syncTree(partial);
    assertThat(synced.wholeFileSystem(), is(DurableFiles.fileSystemSync()));
    if (!synced.wholeFileSystem()) {
      assertThat(synced.files(), is(5L));
    }
    layout.syncPartialBuild("b1");
    assertThat(Files.readString(partial.resolve("groups/aa/cc/z.pmi")), equalTo("groups/aa/cc/z.pmi"));
    layout.publish("b1");
    assertThat(layout.currentBuildId(), equalTo("b1"));
  }

  /** The whole file system is synced only on Linux kernels that report write-back errors to syncfs. */
  @Test
  void syncsTheWholeFileSystemOnlyWhereLinuxReportsErrors() {
    assertThat(DurableFiles.linuxAtLeast("Linux", "5.8.0-1-amd64", 5, 8), is(true));
    assertThat(DurableFiles.linuxAtLeast("Linux", "6.1.0-13-amd64", 5, 8), is(true));
    assertThat(DurableFiles.linuxAtLeast("Linux", "5.7.19", 5, 8), is(false));
    assertThat(DurableFiles.linuxAtLeast("Linux", "4.19.0", 5, 8), is(false));
    assertThat(DurableFiles.linuxAtLeast("Mac OS X", "14.1", 5, 8), is(false));
    assertThat(DurableFiles.linuxAtLeast("Linux", "weird", 5, 8), is(false));
    if (System.getProperty("os.name").equals("Linux") && System.getProperty("os.version").startsWith("6.")
        && java.nio.file.Files.isExecutable(Path.of("/usr/bin/sync"))) {
      assertThat("a Linux 6 machine with coreutils syncs its file system", DurableFiles.fileSystemSync(), is(true));
    }
  }

  @Test
  void syncingAMissingPartialBuildSaysWhichOne() {
    IndexLayout layout = new IndexLayout(root);
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> layout.syncPartialBuild("b9"));
    assertThat(e.getMessage(), containsString("no partial build b9"));
  }
}
