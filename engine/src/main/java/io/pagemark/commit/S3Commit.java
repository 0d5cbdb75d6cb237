package io.pagemark.commit;

import io.pagemark.commit.IndexCommit.Steps;
import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.format.BuildCollector;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.s3.S3IndexStore;
import io.pagemark.format.s3.S3Location;
import io.pagemark.order.TieOrder;
import io.pagemark.wal.Wal;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@code pagemark commit --index=s3://...}: folds the pending segments of a WAL kept on local disk into a new build of
 * an index kept in S3. The commit runs on a local staging copy of only what it changes (the base build's
 * {@code build.json} and manifest, and the group files and version ledgers of the groups with pending changes),
 * exactly as {@link IndexCommit} runs on a directory; then it uploads the rewritten files under
 * {@code builds/NEW/}, copies every other object of the base build inside S3 (no bytes through this process),
 * uploads {@code build.json} last, and points {@code CURRENT} at the new build if it still names the base. Only then
 * are the applied segments deleted from the WAL.
 *
 * <p>Crash safety is the directory commit's: a crash before {@code CURRENT} moves leaves an unpublished prefix that
 * {@code pagemark gc} removes (the segments are still in the WAL); a crash after it leaves segments that the next
 * commit deletes, because the published build lists them in {@code applied-segments.txt}. Commits of one WAL hold
 * {@code WAL_ROOT/.commit.lock}; S3 gives this client no compare-and-set for {@code CURRENT}, so commits of one index
 * from several machines must be serialized by the caller.
 */
final class S3Commit {
  /** Unpublished builds younger than this are left by the commit's pruning (a backfill may be writing one). */
  static final Duration PRUNE_GRACE = Duration.ofMinutes(10);

  private final Path walRoot;
  private final S3Location location;
  private final String group;
  private final int keepBuilds;
  private final Duration dedupeWindow;
  private final PrintStream progress;
  private final Steps steps;

  S3Commit(Path walRoot, S3Location location, String group, int keepBuilds, Duration dedupeWindow,
      PrintStream progress, Steps steps) {
    this.walRoot = walRoot;
    this.location = location;
    this.group = group;
    this.keepBuilds = keepBuilds;
    this.dedupeWindow = dedupeWindow;
    this.progress = progress;
    this.steps = steps;
  }

  @SuppressWarnings("try") // the lock is held by the try block, not used in it
  IndexCommit.Result run(TieOrder ties, DynamoConnection connection, long started) throws IOException {
    if (!Files.isDirectory(walRoot)) {
      throw new NoSuchFileException(walRoot.toString(), null, "no such WAL directory (give the --wal that"
          + " pagemark stream --output wrote)");
    }
    Wal wal = new Wal(walRoot);
    try (S3IndexStore store = new S3IndexStore(location);
        FileChannel lockFile = FileChannel.open(walRoot.resolve(IndexCommit.LOCK), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
        FileLock lock = lockFile.lock()) {
      steps.reached("locked");
      for (int attempt = 1; ; attempt++) {
        String baseId = store.currentBuildId();
        recover(store, wal, baseId);
        Path stage = Files.createTempDirectory(walRoot, ".s3-commit-");
        try {
          IndexCommit.Result r = attempt(store, wal, stage, baseId, ties, connection, started);
          if (r != null) {
            return r;
          }
        } finally {
          CommitBuild.deleteTree(stage);
        }
        if (attempt >= 3) {
          throw new IOException("another build was published three times while committing; try again");
        }
      }
    }
  }

  /** One try: the result, or null when another build was published meanwhile (nothing of this try remains). */
  private IndexCommit.Result attempt(S3IndexStore store, Wal wal, Path stage, String baseId, TieOrder ties,
      DynamoConnection connection, long started) throws IOException {
    IndexLayout layout = new IndexLayout(stage);
    Path base = layout.build(baseId);
    Files.createDirectories(base);
    download(store, S3IndexStore.buildPath(baseId, IndexLayout.BUILD_INFO), base.resolve(IndexLayout.BUILD_INFO));
    download(store, S3IndexStore.buildPath(baseId, IndexLayout.MANIFEST), base.resolve(IndexLayout.MANIFEST));
    Files.writeString(stage.resolve(IndexLayout.CURRENT), baseId + "\n", StandardCharsets.US_ASCII);
    CommitBuild build = new CommitBuild(stage, wal, false, baseId, keepBuilds, dedupeWindow, progress, steps);
    List<Path> groupDirs = IndexCommit.pendingGroupDirs(wal, group, build.baseInfo());
    BuildInfo.Counts c = build.baseInfo().counts();
    if (groupDirs.isEmpty()) {
      return new IndexCommit.Result(null, baseId, 0, 0, 0, 0, 0, 0, c.entries(), c.groups(), 0, 0,
          millisSince(started));
    }
    for (Path dir : groupDirs) { // the base's files of the groups this commit rewrites
      String hash = wal.dir().resolve(Wal.GROUPS).relativize(dir).toString().replace('\\', '/'); // aa/bb/H
      for (String file : List.of("groups/" + hash + ".pmi", IndexCommit.LEDGERS + "/" + hash + VersionLedger.SUFFIX)) {
        downloadIfExists(store, S3IndexStore.buildPath(baseId, file), base.resolve(file));
      }
    }
    String id = IndexCommit.nextId(baseId);
    IndexCommit.Result r;
    try (IndexCommit.TieSource source = new IndexCommit.TieSource(connection, build.baseInfo())) {
      r = build.write(id, groupDirs, ties != null ? ties : source.order, started);
    }
    steps.reached("written");
    upload(store, layout.partialBuild(id), baseId, id, build.touched());
    steps.reached("uploaded");
    if (!store.publishIfCurrent(id, baseId)) {
      store.deletePartial(id);
      return null;
    }
    steps.reached("published");
    build.discardApplied(id);
    new BuildCollector(store).collect(keepBuilds, PRUNE_GRACE, System.currentTimeMillis());
    steps.reached("pruned");
    return new IndexCommit.Result(r.buildId(), r.baseBuild(), r.segments(), r.changes(), r.applied(), r.stale(),
        r.groupsRewritten(), r.groupsLinked(), r.entries(), r.groups(), r.lagMillisP50(), r.lagMillisP95(),
        millisSince(started));
  }

  /**
   * Uploads the staged build's files, copies the base's other objects (groups and ledgers not rewritten, dead
   * letters) inside S3, and uploads {@code build.json} last.
   */
  private void upload(S3IndexStore store, Path partial, String baseId, String id, Set<String> touched)
      throws IOException {
    Set<String> written = new HashSet<>();
    try (Stream<Path> s = Files.walk(partial)) {
      for (Path f : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
        String relative = partial.relativize(f).toString().replace('\\', '/');
        written.add(relative);
        if (!relative.equals(IndexLayout.BUILD_INFO)) {
          store.put(S3IndexStore.buildPath(id, relative), f);
        }
      }
    }
    String basePrefix = location.key(S3IndexStore.buildPath(baseId, ""));
    Set<String> notCarried = Set.of(IndexLayout.BUILD_INFO, IndexLayout.MANIFEST, IndexCommit.APPLIED);
    long copied = 0;
    for (S3Object o : store.list(S3IndexStore.buildPath(baseId, ""))) {
      String relative = o.key().substring(basePrefix.length());
      if (!notCarried.contains(relative) && !touched.contains(relative) && !written.contains(relative)) {
        store.copy(S3IndexStore.buildPath(baseId, relative), S3IndexStore.buildPath(id, relative));
        if (++copied % 1000 == 0 && progress != null) {
          progress.printf("commit: %,d objects of build %s copied%n", copied, baseId);
        }
      }
    }
    store.put(S3IndexStore.buildPath(id, IndexLayout.BUILD_INFO), partial.resolve(IndexLayout.BUILD_INFO));
  }

  /** Deletes the WAL segments the current build lists as applied (a commit that crashed after publishing). */
  private void recover(S3IndexStore store, Wal wal, String baseId) throws IOException {
    byte[] applied;
    try {
      applied = store.read(S3IndexStore.buildPath(baseId, IndexCommit.APPLIED));
    } catch (NoSuchFileException e) {
      return; // a backfill's build, or one whose segments are gone
    }
    for (String line : new String(applied, StandardCharsets.UTF_8).split("\n")) {
      if (!line.isBlank()) {
        Files.deleteIfExists(wal.resolve(line.trim()));
      }
    }
    steps.reached("recovered");
  }

  private static void download(S3IndexStore store, String relative, Path to) throws IOException {
    Files.createDirectories(to.getParent());
    Files.write(to, store.read(relative));
  }

  private static void downloadIfExists(S3IndexStore store, String relative, Path to) throws IOException {
    try {
      download(store, relative, to);
    } catch (NoSuchFileException e) {
      // a group the base does not have yet, or one without a ledger
    }
  }

  private static long millisSince(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1_000_000;
  }
}
