package io.pagemark.commit;

import io.pagemark.wal.Wal;

import io.pagemark.dynamo.DynamoConnection;
import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.s3.S3Location;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.format.BuildIds;
import io.pagemark.order.DynamoTieOrder;
import io.pagemark.order.TieOrder;
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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * {@code pagemark commit}: folds the pending WAL segments of an index into a new build and publishes it atomically.
 * Each group with pending changes gets a new group file from a streaming merge ({@link GroupMerge}); every other group
 * file is carried into the new build as a hard link (no copy: a build is never modified after publish, so builds can
 * share files, and pruning an old build leaves the files the newer ones still link). Lookups see the old build or the
 * new one, never a mix.
 *
 * <p>Crash safety, in order: commits hold {@code ROOT/.commit.lock}; the new build is written under
 * {@code builds/.ID.partial/}, starting with the list of the segments it applies; it is published (directory rename,
 * then {@code CURRENT} rename) only if {@code CURRENT} still names its base; only then are the applied segments
 * deleted. A commit that starts first deletes the segments the current build lists as applied (a crash after
 * publishing), and removes partial builds of crashed commits. So a crash at any point either loses the whole commit
 * (the segments are still there) or leaves it published (the segments are applied); no change is lost or applied
 * twice, and a change applied twice would not matter ({@link VersionLedger}).
 *
 * <p>Immutable; the {@code withX} methods return new configurations.
 */
public final class IndexCommit {
  /** How long the versions of applied changes are kept to recognize duplicates, by default. */
  public static final Duration DEFAULT_DEDUPE_WINDOW = Duration.ofHours(24);
  /**
   * Changes created this long before a backfill began are in its scan: a backfill's build takes the time its
   * pipeline was built as its start, and a change is stamped no earlier than it happened.
   */
  public static final long BACKFILL_MARGIN_MICROS = TimeUnit.MINUTES.toMicros(10);
  static final String APPLIED = "applied-segments.txt";
  static final String LEDGERS = "versions";
  static final String LOCK = ".commit.lock";

  /**
   * Told each time a commit has changed files ("started", "group", "linked", "written", "published", "discarded",
   * "pruned", ...): for progress, and for tests that throw from it to simulate a crash at that point.
   */
  public interface Steps {
    void reached(String step) throws IOException;

    Steps NONE = step -> {};
  }

  /**
   * What a commit did.
   *
   * @param buildId the published build, or null when there was nothing to commit
   * @param baseBuild the build it started from
   * @param segments WAL segments applied
   * @param changes changes in them
   * @param applied changes newer than what the index held
   * @param stale changes that were not (duplicates, replays)
   * @param groupsRewritten group files written anew (including groups that became empty)
   * @param groupsLinked group files carried over
   * @param entries entries of the new build
   * @param groups groups of the new build
   * @param lagMillisP50 median time from a change's creation to publication
   * @param lagMillisP95 95th percentile of the same
   * @param millis the commit's duration
   */
  public record Result(String buildId, String baseBuild, long segments, long changes, long applied, long stale,
      long groupsRewritten, long groupsLinked, long entries, long groups, long lagMillisP50, long lagMillisP95,
      long millis) {
    public boolean nothingToCommit() {
      return buildId == null;
    }
  }

  private final Path root;
  private final String group;
  private final DynamoConnection connection;
  private final int keepBuilds;
  private final Duration dedupeWindow;
  private final PrintStream progress;
  private final Steps steps;
  private final TieOrder ties;
  private final S3Location s3;

  private IndexCommit(Path root, String group, DynamoConnection connection, int keepBuilds, Duration dedupeWindow,
      PrintStream progress, Steps steps, TieOrder ties, S3Location s3) {
    this.root = root;
    this.group = group;
    this.connection = connection;
    this.keepBuilds = keepBuilds;
    this.dedupeWindow = dedupeWindow;
    this.progress = progress;
    this.steps = steps;
    this.ties = ties;
    this.s3 = s3;
  }

  /** A commit of every pending group of the index at {@code root}; keeps 3 builds; no DynamoDB. */
  public static IndexCommit of(Path root) {
    return new IndexCommit(root.toAbsolutePath().normalize(), null, null, 3, DEFAULT_DEDUPE_WINDOW, null,
        Steps.NONE, null, null);
  }

  /**
   * A commit of the WAL kept on local disk under {@code walRoot} (its {@code wal/} folder, where {@code pagemark
   * stream --output=walRoot} appends) into the index kept in S3 at {@code index}: see {@link S3Commit}.
   */
  public static IndexCommit toS3(Path walRoot, S3Location index) {
    return new IndexCommit(walRoot.toAbsolutePath().normalize(), null, null, 3, DEFAULT_DEDUPE_WINDOW, null,
        Steps.NONE, null, java.util.Objects.requireNonNull(index, "index"));
  }

  /** Commits only this group (text for S, decimal for N, base64 for B); other pending groups wait. */
  public IndexCommit withGroup(String text) {
    return new IndexCommit(root, text, connection, keepBuilds, dedupeWindow, progress, steps, ties, s3);
  }

  /**
   * Learn DynamoDB's order of equal sort keys for the runs the changes touch by querying the index (as the backfill
   * does). Without a connection such runs are marked unresolved and lookups step around them.
   */
  public IndexCommit withTieResolution(DynamoConnection c) {
    return new IndexCommit(root, group, c, keepBuilds, dedupeWindow, progress, steps, ties, s3);
  }

  /** Published builds to keep (the current one is never removed). */
  public IndexCommit withKeepBuilds(int n) {
    if (n < 2) {
      throw new IllegalArgumentException("keepBuilds must be at least 2 (the base and the new build), not " + n);
    }
    return new IndexCommit(root, group, connection, n, dedupeWindow, progress, steps, ties, s3);
  }

  /** How long the versions of applied changes are kept to recognize duplicates and replays. */
  public IndexCommit withDedupeWindow(Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("the dedupe window must be positive, not " + d);
    }
    return new IndexCommit(root, group, connection, keepBuilds, d, progress, steps, ties, s3);
  }

  /** Where to print progress lines (null: none). */
  public IndexCommit withProgress(PrintStream out) {
    return new IndexCommit(root, group, connection, keepBuilds, dedupeWindow, out, steps, ties, s3);
  }

  /** Calls {@code s} after every step that changes files. */
  public IndexCommit withSteps(Steps s) {
    return new IndexCommit(root, group, connection, keepBuilds, dedupeWindow, progress, s, ties, s3);
  }

  /** Orders equal sort keys with this instead of DynamoDB (tests). */
  public IndexCommit withTies(TieOrder t) {
    return new IndexCommit(root, group, connection, keepBuilds, dedupeWindow, progress, steps, t, s3);
  }

  /**
   * Runs the commit. Throws {@link java.nio.file.NoSuchFileException} when the index has no published build yet (run
   * a backfill first; the WAL keeps the changes), {@link IllegalArgumentException} for a group that cannot be a key of
   * this index, and {@link IOException} for damaged files (naming them).
   */
  public Result run() throws IOException {
    Result r = publish();
    if (!r.nothingToCommit() && s3 == null) {
      prune();
    }
    return r;
  }

  /**
   * Runs the commit up to the publication of its build and the removal of the WAL segments it applied, but leaves
   * the builds beyond {@code keepBuilds} in place: for a caller that answers a client first and then calls
   * {@link #prune()} (removing a large build's files takes a while; nothing reads them once a newer build is
   * current). Throws as {@link #run()} does.
   */
  @SuppressWarnings("try") // the lock is held by the try block, not used in it
  public Result publish() throws IOException {
    long started = System.nanoTime();
    if (s3 != null) {
      return new S3Commit(root, s3, group, keepBuilds, dedupeWindow, progress, steps).run(
          ties, connection, started);
    }
    if (!Files.isDirectory(root)) {
      throw new NoSuchFileException(root.toString(), null, "no such index directory");
    }
    try (FileChannel lockFile =
            FileChannel.open(root.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = lockFile.lock()) {
      steps.reached("locked");
      IndexLayout layout = new IndexLayout(root);
      for (int attempt = 1; ; attempt++) {
        String baseId = layout.currentBuildId();
        recover(layout, baseId);
        CommitBuild build = new CommitBuild(root, baseId, keepBuilds, dedupeWindow, progress, steps);
        List<Path> groupDirs = pendingGroupDirs(build.baseInfo());
        if (groupDirs.isEmpty()) {
          return new Result(null, baseId, 0, 0, 0, 0, 0, 0, build.baseInfo().counts().entries(),
              build.baseInfo().counts().groups(), 0, 0, elapsedMillis(started));
        }
        String id = nextId(baseId);
        Result r;
        try (TieSource source = new TieSource(connection, build.baseInfo())) {
          r = build.write(id, groupDirs, ties != null ? ties : source.order, started);
        }
        steps.reached("written");
        if (!layout.publishIfCurrent(id, baseId)) {
          CommitBuild.deleteTree(layout.partialBuild(id));
          if (attempt >= 3) {
            throw new IOException("another build was published three times while committing; try again");
          }
          continue; // a backfill was published meanwhile: commit on top of it
        }
        steps.reached("published");
        build.discardApplied(id);
        return r;
      }
    }
  }

  /**
   * Removes the oldest published builds beyond {@code keepBuilds} (never the current one), holding the commit lock;
   * {@link #run()} does this itself. Nothing for an index in S3 (its publisher prunes).
   */
  @SuppressWarnings("try") // the lock is held by the try block, not used in it
  public void prune() throws IOException {
    if (s3 != null) {
      return;
    }
    try (FileChannel lockFile =
            FileChannel.open(root.resolve(LOCK), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = lockFile.lock()) {
      CommitBuild.prune(new IndexLayout(root), keepBuilds);
      steps.reached("pruned");
    }
  }

  /** Finishes what a crashed commit left: deletes segments the current build applied, and partial commit builds. */
  private void recover(IndexLayout layout, String baseId) throws IOException {
    Wal wal = new Wal(root);
    Path applied = layout.build(baseId).resolve(APPLIED);
    if (Files.isRegularFile(applied)) {
      for (String line : Files.readAllLines(applied, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          Files.deleteIfExists(wal.resolve(line.trim()));
        }
      }
      steps.reached("recovered");
    }
    Path builds = root.resolve(IndexLayout.BUILDS);
    if (Files.isDirectory(builds)) {
      try (var ds = Files.newDirectoryStream(builds, ".*.partial")) {
        for (Path p : ds) {
          if (Files.isRegularFile(p.resolve(APPLIED))) {
            CommitBuild.deleteTree(p);
          }
        }
      }
    }
  }

  private List<Path> pendingGroupDirs(BuildInfo info) throws IOException {
    return pendingGroupDirs(new Wal(root), group, info);
  }

  /** The WAL's group folders with segments: all, or only the given group's. */
  static List<Path> pendingGroupDirs(Wal wal, String group, BuildInfo info) throws IOException {
    if (group == null) {
      return wal.pendingGroupDirs();
    }
    KeyValue key = KeyValue.parse(KeyType.fromDynamoName(info.groupType()), group);
    Path dir = wal.groupDir(key);
    return Wal.segments(dir).isEmpty() ? List.of() : List.of(dir);
  }

  /** A build id after the base's (ids sort by time), so that pruning by id keeps the newest builds. */
  static String nextId(String baseId) {
    long now = System.currentTimeMillis();
    String id = BuildIds.newId(now);
    for (int i = 1; i <= 3 && id.compareTo(baseId) <= 0; i++) {
      id = BuildIds.newId(now + i * 1000L);
    }
    return id;
  }

  private static long elapsedMillis(long startedNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
  }

  /** DynamoDB's order of equal sort keys, when a connection and a GSI are known; else unknown. */
  static final class TieSource implements AutoCloseable {
    final TieOrder order;
    private final DynamoDbClient client;

    TieSource(DynamoConnection connection, BuildInfo info) {
      if (connection == null || info.indexName() == null) {
        client = null;
        order = TieOrder.UNKNOWN;
        return;
      }
      client = connection.client();
      KeySchema schema = KeySchema.describe(client, info.table(), info.indexName());
      order = new DynamoTieOrder(client, schema, () -> {});
    }

    @Override
    public void close() {
      if (client != null) {
        client.close();
      }
    }
  }

  static Path ledgerPath(Path build, KeyValue group) {
    String file = GroupPaths.relativePath(group); // groups/aa/bb/H.pmi
    String relative = LEDGERS + file.substring("groups".length(), file.lastIndexOf('.')) + VersionLedger.SUFFIX;
    Path p = build;
    for (String part : relative.split("/")) {
      p = p.resolve(part);
    }
    return p;
  }

  static GroupFile openIfExists(Path file) throws IOException {
    try {
      return GroupFile.open(file);
    } catch (NoSuchFileException e) {
      return null;
    }
  }
}
