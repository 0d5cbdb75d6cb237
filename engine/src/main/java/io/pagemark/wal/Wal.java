package io.pagemark.wal;

import io.pagemark.format.GroupPaths;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * The write-ahead log beside an index: where the stream appends changes and where the commit finds them.
 *
 * <pre>
 * ROOT/wal/groups/aa/bb/H/s-T-R.wal   finished segments of the group whose file is groups/aa/bb/H.pmi
 * ROOT/wal/groups/aa/bb/H/.s-T-R.wal.tmp  a segment being written (never read)
 * ROOT/wal/POSITION                   the stream's resume point: every record that reached Kinesis before it is in
 *                                     a segment (or was applied); ISO-8601 instant
 * ROOT/wal/deadletter/*.jsonl         records that could not be applied, with the reason
 * </pre>
 *
 * Group keys never become paths: a group's folder is named by the same SHA-256 as its group file
 * ({@link GroupPaths}). Segment names are the write time in milliseconds and 64 random bits, so they never repeat.
 */
public final class Wal {
  public static final String DIR = "wal";
  public static final String GROUPS = "groups";
  static final String POSITION = "POSITION";
  static final String DEAD_LETTER = "deadletter";

  /** File locks are per process; threads of one process take this first. */
  private static final Object POSITION_LOCK = new Object();

  private final Path root;

  /** The WAL of the index at {@code indexRoot}. */
  public Wal(Path indexRoot) {
    this.root = indexRoot;
  }

  public Path dir() {
    return root.resolve(DIR);
  }

  /** The folder of a group's segments. */
  public Path groupDir(KeyValue group) {
    String file = GroupPaths.relativePath(group); // groups/aa/bb/H.pmi
    Path p = dir();
    for (String part : file.substring(0, file.lastIndexOf('.')).split("/")) {
      p = p.resolve(part);
    }
    return p;
  }

  /** A fresh segment name. */
  public static String newSegmentName() {
    return String.format("s-%013d-%016x%s", System.currentTimeMillis(), ThreadLocalRandom.current().nextLong(),
        WalSegment.SUFFIX);
  }

  /** The finished segments in one group folder, by name. */
  public static List<Path> segments(Path groupDir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(groupDir, "s-*" + WalSegment.SUFFIX)) {
      ds.forEach(out::add);
    } catch (NoSuchFileException e) {
      return out;
    }
    out.sort(null);
    return out;
  }

  /**
   * Deletes temporary segment files in a group folder older than {@code age}: what a stream killed while writing
   * left behind (a live writer renames its file within a flush).
   */
  public static void deleteAbandoned(Path groupDir, java.time.Duration age) throws IOException {
    long cutoff = System.currentTimeMillis() - age.toMillis();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(groupDir, ".s-*" + WalSegment.SUFFIX + ".tmp")) {
      for (Path p : ds) {
        if (Files.getLastModifiedTime(p).toMillis() < cutoff) {
          Files.deleteIfExists(p);
        }
      }
    } catch (NoSuchFileException e) {
      // no folder, nothing abandoned
    }
  }

  /** Every group folder that holds at least one finished segment, in path order. */
  public List<Path> pendingGroupDirs() throws IOException {
    Path groups = dir().resolve(GROUPS);
    if (!Files.isDirectory(groups)) {
      return List.of();
    }
    List<Path> out = new ArrayList<>();
    try (Stream<Path> s = Files.walk(groups, 3)) {
      for (Path d : (Iterable<Path>) s.filter(p -> groups.relativize(p).getNameCount() == 3)::iterator) {
        if (Files.isDirectory(d) && !segments(d).isEmpty()) {
          out.add(d);
        }
      }
    }
    out.sort(null);
    return out;
  }

  /** A segment's path relative to the WAL folder, with '/' separators (how commits record applied segments). */
  public String relative(Path segment) {
    return dir().relativize(segment).toString().replace('\\', '/');
  }

  /** The segment at a path {@link #relative} returned. */
  public Path resolve(String relative) {
    if (relative.contains("..") || !relative.startsWith(GROUPS + "/") || !relative.endsWith(WalSegment.SUFFIX)) {
      throw new IllegalArgumentException("not a segment path: " + relative);
    }
    Path p = dir();
    for (String part : relative.split("/")) {
      p = p.resolve(part);
    }
    return p;
  }

  public Path deadLetterDir() {
    return dir().resolve(DEAD_LETTER);
  }

  /** The stream's resume point, if one was written. */
  public Optional<Instant> position() throws IOException {
    Path f = dir().resolve(POSITION);
    try {
      return Optional.of(Instant.parse(Files.readString(f, StandardCharsets.US_ASCII).trim()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (DateTimeParseException e) {
      throw new IOException(f + " is not an ISO-8601 instant: " + e.getMessage());
    }
  }

  /**
   * Moves the resume point forward to {@code position}, never back: workers that finish windows out of order (threads
   * of one JVM or task managers of a cluster sharing the directory) each call this, and the latest end wins. Returns
   * whether the stored position moved.
   */
  public boolean advancePosition(Instant position) throws IOException {
    Files.createDirectories(dir());
    synchronized (POSITION_LOCK) {
      try (FileChannel lockFile = FileChannel.open(dir().resolve("." + POSITION + ".lock"),
              StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = lockFile.lock()) {
        Optional<Instant> current = position();
        if (current.isPresent() && !position.isAfter(current.get())) {
          return false;
        }
        writePosition(position);
        return true;
      }
    }
  }

  /** Replaces the resume point atomically (also backwards; the stream itself uses {@link #advancePosition}). */
  public void writePosition(Instant position) throws IOException {
    Files.createDirectories(dir());
    Path tmp = dir().resolve("." + POSITION + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()));
    Files.writeString(tmp, position + "\n", StandardCharsets.US_ASCII);
    Files.move(tmp, dir().resolve(POSITION), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
