package io.pagemark.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The layout of an index root directory, shared by builders and readers:
 *
 * <pre>
 * ROOT/CURRENT                      the id of the published build (replaced atomically)
 * ROOT/builds/ID/build.json         what the build holds ({@link BuildInfo})
 * ROOT/builds/ID/manifest.jsonl     one line per group: key, file, count, width, SHA-256
 * ROOT/builds/ID/groups/aa/bb/*.pmi group files ({@link GroupPaths})
 * ROOT/builds/ID/deadletter/*.jsonl items that could not be indexed, with the reason
 * ROOT/builds/.ID.partial/          a build being written; readers never look here
 * </pre>
 *
 * A build becomes visible in two atomic renames: its partial directory to {@code builds/ID}, then a new
 * {@code CURRENT} over the old one. A reader resolves {@code CURRENT} once and then reads one complete build.
 */
public final class IndexLayout {
  public static final String CURRENT = "CURRENT";
  public static final String BUILDS = "builds";
  public static final String BUILD_INFO = "build.json";
  public static final String MANIFEST = "manifest.jsonl";
  public static final String DEAD_LETTER = "deadletter";
  private static final Pattern BUILD_ID = Pattern.compile("[0-9A-Za-z][0-9A-Za-z._-]{0,31}");

  private final Path root;

  public IndexLayout(Path root) {
    this.root = root;
  }

  public Path root() {
    return root;
  }

  /** Throws {@link IllegalArgumentException} unless the id is 1 to 32 of [0-9A-Za-z._-], not starting with a dot. */
  public static String checkBuildId(String id) {
    if (!BUILD_ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "build id \"" + id + "\" must be 1 to 32 letters, digits, '.', '_' or '-', not starting with '.'");
    }
    return id;
  }

  public Path build(String id) {
    return root.resolve(BUILDS).resolve(checkBuildId(id));
  }

  public Path partialBuild(String id) {
    return root.resolve(BUILDS).resolve("." + checkBuildId(id) + ".partial");
  }

  /**
   * What a published build holds: its {@code build.json}, checked to name that build. Readers of a file index get
   * a build's counts and schema here (an opened index answers the same for every store).
   *
   * @throws IllegalArgumentException if the build id is malformed
   * @throws NoSuchFileException when the index has no such build
   * @throws IndexFormatException when its {@code build.json} is unreadable or names another build
   * @throws IOException when it cannot be read
   */
  public BuildInfo buildInfo(String buildId) throws IOException {
    Path file = build(buildId).resolve(BUILD_INFO);
    if (!Files.isRegularFile(file)) {
      throw new NoSuchFileException(file.toString(), null, "build " + buildId + " not found");
    }
    BuildInfo info = BuildInfo.read(file);
    if (!buildId.equals(info.buildId())) {
      throw new IndexFormatException(file, "says build " + info.buildId() + " but lives in " + buildId);
    }
    return info;
  }

  /** The current build's id; throws {@link NoSuchFileException} with a helpful message when there is none. */
  public String currentBuildId() throws IOException {
    Path current = root.resolve(CURRENT);
    String id;
    try {
      id = Files.readString(current, StandardCharsets.US_ASCII).trim();
    } catch (NoSuchFileException e) {
      if (!Files.isDirectory(root)) {
        throw new NoSuchFileException(root.toString(), null, "no such index directory");
      }
      throw new NoSuchFileException(
          current.toString(), null, "no published build in this directory (is it an index written by backfill?)");
    }
    try {
      return checkBuildId(id);
    } catch (IllegalArgumentException e) {
      throw new IndexFormatException(current, "corrupt CURRENT pointer: " + e.getMessage());
    }
  }

  /**
   * Makes every file and directory of a partial build durable, with one sync of its file system where Linux reports
   * write-back errors to it (5.8 and later), else in one parallel pass of fsyncs: for writers that left their files to
   * the caller ({@link FileSync#BY_CALLER}). Call it after the build's last file is written and before
   * {@link #publish}.
   *
   * @throws NoSuchFileException if there is no such partial build
   */
  public void syncPartialBuild(String id) throws IOException {
    Path partial = partialBuild(id);
    if (!Files.isDirectory(partial)) {
      throw new NoSuchFileException(partial.toString(), null, "no partial build " + id + " to sync");
    }
    DurableFiles.syncTree(partial);
  }

  /**
   * Publishes a finished partial build: renames it into place, then points {@code CURRENT} at it. Each rename is
   * synced (the new {@code CURRENT} before it replaces the old one), so that after a crash {@code CURRENT} names a
   * whole build; the build's own files must be durable already (written with {@link FileSync#ON_FINISH}, or see
   * {@link #syncPartialBuild}). Idempotent: a retried publish of the same build succeeds.
   */
  public void publish(String id) throws IOException {
    Path partial = partialBuild(id);
    Path done = build(id);
    if (Files.isDirectory(partial)) {
      if (Files.exists(done)) {
        throw new IOException("cannot publish build " + id + ": " + done + " already exists");
      }
      Files.move(partial, done, StandardCopyOption.ATOMIC_MOVE);
      DurableFiles.syncDirectory(done.getParent());
    } else if (!Files.isDirectory(done)) {
      throw new NoSuchFileException(partial.toString(), null, "nothing to publish for build " + id);
    }
    Path tmp = root.resolve(CURRENT + "." + id + ".tmp");
    Files.writeString(tmp, id + "\n", StandardCharsets.US_ASCII);
    DurableFiles.sync(tmp);
    try {
      Files.move(tmp, root.resolve(CURRENT), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.deleteIfExists(tmp);
      throw new IOException("the index directory's file system cannot replace CURRENT atomically", e);
    }
    DurableFiles.syncDirectory(root);
  }

  /**
   * Publishes a finished partial build as {@link #publish} does, but only if {@code CURRENT} still names
   * {@code expectedCurrent}: a build derived from another one (an incremental commit) must not replace a build
   * published since. Returns false, publishing nothing, when {@code CURRENT} moved. Callers that derive builds
   * serialize among themselves; a backfill that publishes between the check and the switch is superseded by the
   * derived build, which is still a complete index (its base plus the changes since).
   */
  public boolean publishIfCurrent(String id, String expectedCurrent) throws IOException {
    if (!expectedCurrent.equals(currentBuildId())) {
      return false;
    }
    publish(id);
    return true;
  }

  /** Published build ids, oldest first (ids sort by time). */
  public List<String> builds() throws IOException {
    List<String> ids = new ArrayList<>();
    Path dir = root.resolve(BUILDS);
    if (!Files.isDirectory(dir)) {
      return ids;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (!name.startsWith(".") && Files.isDirectory(p) && BUILD_ID.matcher(name).matches()) {
          ids.add(name);
        }
      }
    }
    ids.sort(null);
    return ids;
  }
}
