package io.pagemark.commit;

import io.pagemark.change.IndexChange;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFile;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexFormatException;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.commit.IndexCommit.Steps;
import io.pagemark.order.TieOrder;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One commit's new build, written under {@code builds/.ID.partial/} from a base build and WAL segments. The files of
 * untouched groups are hard-linked from the base build, or, for an index staged from S3 ({@link S3Commit}), left for
 * the publisher to copy inside the store ({@link #touched()} says which group files not to carry).
 */
public final class CommitBuild {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path root;
  private final String baseId;
  private final Path baseDir;
  private final BuildInfo baseInfo;
  private final int keepBuilds;
  private final Duration dedupeWindow;
  private final PrintStream progress;
  private final Steps steps;
  private final Wal wal;
  private final boolean carryUntouched;
  private final List<Path> applied = new ArrayList<>();
  private final Set<String> touched = new HashSet<>();

  CommitBuild(Path root, String baseId, int keepBuilds, Duration dedupeWindow, PrintStream progress, Steps steps)
      throws IOException {
    this(root, new Wal(root), true, baseId, keepBuilds, dedupeWindow, progress, steps);
  }

  /**
   * A build of the index staged at {@code root} from the WAL {@code wal}; {@code carryUntouched} false leaves the
   * files of untouched groups (and the base's ledgers and dead letters) out of the new build.
   */
  CommitBuild(Path root, Wal wal, boolean carryUntouched, String baseId, int keepBuilds, Duration dedupeWindow,
      PrintStream progress, Steps steps) throws IOException {
    this.root = root;
    this.baseId = baseId;
    IndexLayout layout = new IndexLayout(root);
    this.baseDir = layout.build(baseId);
    this.baseInfo = BuildInfo.read(baseDir.resolve(IndexLayout.BUILD_INFO));
    this.keepBuilds = keepBuilds;
    this.dedupeWindow = dedupeWindow;
    this.progress = progress;
    this.steps = steps;
    this.wal = wal;
    this.carryUntouched = carryUntouched;
  }

  /** The group files (relative to a build) the written build rewrote or removed. */
  Set<String> touched() {
    return touched;
  }

  BuildInfo baseInfo() {
    return baseInfo;
  }

  /** Changes created before this are in the base build (see {@link IndexCommit#BACKFILL_MARGIN_MICROS}). */
  private long horizonMicros() {
    return baseInfo.commit() != null
        ? baseInfo.commit().horizonMicros()
        : TimeUnit.MILLISECONDS.toMicros(baseInfo.createdAtMillis()) - IndexCommit.BACKFILL_MARGIN_MICROS;
  }

  /** Writes the build {@code id}: the pending segments of {@code groupDirs} applied to the base. */
  IndexCommit.Result write(String id, List<Path> groupDirs, TieOrder ties, long startedNanos) throws IOException {
    long buildTime = System.currentTimeMillis();
    Path partial = new IndexLayout(root).partialBuild(id);
    deleteTree(partial);
    Files.createDirectories(partial);
    TreeMap<Path, List<Path>> snapshot = new TreeMap<>();
    for (Path dir : groupDirs) {
      Wal.deleteAbandoned(dir, Duration.ofHours(1));
      List<Path> segments = Wal.segments(dir);
      if (!segments.isEmpty()) {
        snapshot.put(dir, segments);
        applied.addAll(segments);
      }
    }
    // First file of the build: the segments it applies (it also marks the partial build as a commit's).
    List<String> names = new ArrayList<>();
    applied.forEach(p -> names.add(wal.relative(p)));
    Files.write(partial.resolve(IndexCommit.APPLIED), names, StandardCharsets.UTF_8);
    steps.reached("started");

    TreeMap<String, ObjectNode> manifest = readManifest();
    List<KeyAttribute> attributes = attributes(baseInfo);
    KeyType groupType = KeyType.fromDynamoName(baseInfo.groupType());
    long changes = 0;
    long appliedChanges = 0;
    long stale = 0;
    List<Long> creations = new ArrayList<>();
    int done = 0;
    for (Map.Entry<Path, List<Path>> e : snapshot.entrySet()) {
      List<IndexChange> groupChanges = new ArrayList<>();
      KeyValue key = null;
      for (Path segment : e.getValue()) {
        WalSegment s = WalSegment.read(segment);
        if (!s.groupAttribute().equals(baseInfo.groupAttribute()) || !s.attributes().equals(attributes)
            || s.group().type() != groupType || (key != null && !key.equals(s.group()))
            || !wal.groupDir(s.group()).equals(e.getKey())) {
          throw new IndexFormatException(segment, "was written for a different index (group " + s.group() + " of "
              + s.groupAttribute() + ", attributes " + s.attributes() + "; this index stores "
              + baseInfo.groupAttribute() + " and " + attributes + ")");
        }
        key = s.group();
        groupChanges.addAll(s.changes());
      }
      changes += groupChanges.size();
      String file = GroupPaths.relativePath(key);
      ObjectNode baseLine = manifest.get(file);
      VersionLedger ledger = VersionLedger.read(IndexCommit.ledgerPath(baseDir, key), horizonMicros());
      ledger.advanceHorizon(horizonMicros());
      GroupHeader template = new GroupHeader(baseInfo.groupAttribute(), key, attributes, 0, 0, buildTime, id,
          new byte[32]);
      GroupMerge.Result r;
      try (GroupFile base = IndexCommit.openIfExists(GroupPaths.resolve(baseDir, key))) {
        if (base != null && !base.header().groupKey().equals(key)) {
          throw new IndexFormatException(base.path(), "holds group " + base.header().groupKey() + ", not " + key);
        }
        long baseRuns = baseLine == null ? 0 : baseLine.path("tieRuns").asLong();
        long baseUnresolved = baseLine == null ? 0 : baseLine.path("tieRunsUnresolved").asLong();
        r = GroupMerge.merge(base, baseRuns, baseUnresolved, groupChanges, ledger, ties, template,
            GroupPaths.resolve(partial, key));
      }
      ledger.advanceHorizon(ledger.newestMicros() - TimeUnit.MILLISECONDS.toMicros(dedupeWindow.toMillis()));
      ledger.write(IndexCommit.ledgerPath(partial, key));
      if (r.empty()) {
        manifest.remove(file);
      } else {
        manifest.put(file, manifestLine(key, file, r, id));
      }
      touched.add(file);
      appliedChanges += r.applied();
      stale += r.stale();
      creations.addAll(r.appliedCreationMicros());
      steps.reached("group");
      if (progress != null && ++done % 1000 == 0) {
        progress.printf("commit: %,d of %,d groups merged%n", done, snapshot.size());
      }
    }

    long linked = 0;
    for (Map.Entry<String, ObjectNode> line : manifest.entrySet()) {
      if (!touched.contains(line.getKey())) {
        if (carryUntouched) {
          link(baseDir.resolve(line.getKey()), partial.resolve(line.getKey()));
        }
        if (!line.getValue().has("buildId")) {
          line.getValue().put("buildId", baseId);
        }
        linked++;
      }
    }
    Set<Path> touchedLedgers = new HashSet<>();
    for (Path dir : snapshot.keySet()) {
      touchedLedgers.add(baseDir.relativize(ledgerPathOfWalDir(baseDir, dir)));
    }
    if (carryUntouched) {
      linkTree(baseDir.resolve(IndexCommit.LEDGERS), partial, touchedLedgers);
      linkTree(baseDir.resolve(IndexLayout.DEAD_LETTER), partial, Set.of());
    }
    steps.reached("linked");

    long entries = 0;
    long tieRuns = 0;
    long unresolved = 0;
    TreeSet<String> groupBuilds = new TreeSet<>();
    try (BufferedWriter w = Files.newBufferedWriter(partial.resolve(IndexLayout.MANIFEST), StandardCharsets.UTF_8)) {
      for (ObjectNode line : manifest.values()) {
        w.write(line.toString());
        w.write('\n');
        entries += line.path("count").asLong();
        tieRuns += line.path("tieRuns").asLong();
        unresolved += line.path("tieRunsUnresolved").asLong();
        groupBuilds.add(line.path("buildId").asText());
      }
    }
    long[] lag = percentiles(creations);
    BuildInfo.Counts c = baseInfo.counts();
    BuildInfo info = new BuildInfo(baseInfo.formatVersion(), id, buildTime, baseInfo.table(), baseInfo.indexName(),
        baseInfo.groupAttribute(), baseInfo.groupType(), baseInfo.attributes(),
        new BuildInfo.Counts(c.itemsScanned(), entries, manifest.size(), c.skippedNoGroupKey(), c.skippedNoSortKey(),
            c.deadLetters(), tieRuns, unresolved),
        List.copyOf(groupBuilds),
        new BuildInfo.Commit(baseId, horizonMicros(), applied.size(), changes, appliedChanges, stale, touched.size(),
            linked, lag[0], lag[1]));
    Files.writeString(partial.resolve(IndexLayout.BUILD_INFO), info.toJson(), StandardCharsets.UTF_8);
    return new IndexCommit.Result(id, baseId, applied.size(), changes, appliedChanges, stale, touched.size(), linked,
        entries, manifest.size(), lag[0], lag[1],
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
  }

  /** Deletes the segments the published build applied. */
  void discardApplied(String id) throws IOException {
    for (Path p : applied) {
      Files.deleteIfExists(p);
      steps.reached("discarded");
    }
  }

  /**
   * Removes the oldest published builds (by their {@code build.json} time) beyond {@code keepBuilds}, counting the
   * current one, which is never removed.
   */
  static void prune(IndexLayout layout, int keepBuilds) throws IOException {
    String current = layout.currentBuildId();
    List<String> others = new ArrayList<>(layout.builds());
    others.remove(current);
    Map<String, Long> created = new java.util.HashMap<>();
    for (String id : others) {
      try {
        created.put(id, BuildInfo.read(layout.build(id).resolve(IndexLayout.BUILD_INFO)).createdAtMillis());
      } catch (IOException e) {
        created.put(id, Long.MIN_VALUE); // unreadable: oldest
      }
    }
    others.sort(Comparator.comparing((String id) -> created.get(id)).thenComparing(id -> id));
    for (int i = 0; i < others.size() - (keepBuilds - 1); i++) {
      deleteTree(layout.build(others.get(i)));
    }
  }

  private TreeMap<String, ObjectNode> readManifest() throws IOException {
    TreeMap<String, ObjectNode> m = new TreeMap<>();
    Path f = baseDir.resolve(IndexLayout.MANIFEST);
    for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n = JSON.readTree(line);
      if (!n.isObject() || !n.path("file").isTextual()) {
        throw new IndexFormatException(f, "a line without a file: " + line);
      }
      m.put(n.get("file").asText(), (ObjectNode) n);
    }
    return m;
  }

  private ObjectNode manifestLine(KeyValue key, String file, GroupMerge.Result r, String id) throws IOException {
    ObjectNode n = JSON.createObjectNode();
    n.set("group", JSON.readTree(key.toString()));
    n.put("file", file);
    n.put("count", r.entries());
    n.put("recordWidth", r.header().recordWidth());
    n.put("sha256", HexFormat.of().formatHex(r.header().recordsSha256()));
    n.put("tieRuns", r.tieRuns());
    n.put("tieRunsUnresolved", r.unresolvedRuns());
    n.put("buildId", id);
    return n;
  }

  /** The ledger file of the group whose WAL folder is {@code walGroupDir} (the same hash names both). */
  private Path ledgerPathOfWalDir(Path build, Path walGroupDir) {
    Path rel = wal.dir().resolve(Wal.GROUPS).relativize(walGroupDir); // aa/bb/H
    Path p = build.resolve(IndexCommit.LEDGERS);
    for (int i = 0; i < rel.getNameCount() - 1; i++) {
      p = p.resolve(rel.getName(i).toString());
    }
    return p.resolve(rel.getFileName() + VersionLedger.SUFFIX);
  }

  /** Hard-links every file under {@code dir} (a folder of the base build) into the same place of {@code to}. */
  private void linkTree(Path dir, Path to, Set<Path> except) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
        Path rel = baseDir.relativize(f);
        if (!except.contains(rel)) {
          link(f, to.resolve(rel.toString()));
        }
      }
    }
  }

  /**
   * Carries a file of the base build into the new one: a hard link (no copy; published files never change), or a
   * copy where the file system has no hard links.
   */
  private static void link(Path existing, Path link) throws IOException {
    Files.createDirectories(link.getParent());
    try {
      Files.createLink(link, existing);
    } catch (UnsupportedOperationException e) {
      Files.copy(existing, link);
    } catch (NoSuchFileException e) {
      throw new IndexFormatException(existing, "is listed in the base build but missing");
    }
  }

  static List<KeyAttribute> attributes(BuildInfo info) {
    return info.attributes().stream().map(BuildInfo.Attribute::toKeyAttribute).toList();
  }

  /** p50 and p95 of the time from creation to now, in milliseconds (0 when there is none). */
  private static long[] percentiles(List<Long> creationMicros) {
    if (creationMicros.isEmpty()) {
      return new long[] {0, 0};
    }
    long now = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
    long[] lags = creationMicros.stream().mapToLong(c -> Math.max(0, (now - c) / 1000)).sorted().toArray();
    return new long[] {lags[(int) ((lags.length - 1) * 0.50)], lags[(int) ((lags.length - 1) * 0.95)]};
  }

  public static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    }
  }
}
