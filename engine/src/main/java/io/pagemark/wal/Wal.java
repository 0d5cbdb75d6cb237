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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * The write-ahead log beside an index: where the stream appends changes and where the commit finds them.
 *
 * <pre>
 * ROOT/wal/groups/aa/bb/H/s-T-R.wal   finished segments of the group whose file is groups/aa/bb/H.pmi
 * ROOT/wal/groups/aa/bb/H/.s-T-R.wal.tmp  a segment being written (never read)
 * ROOT/wal/POSITIONS                  the stream's resume positions, one line per Kinesis shard:
 *                                     {@code shardId sequenceNumber arrival}; every record of the shard up to that
 *                                     sequence number is in a segment (or changed nothing); see {@link ShardPosition}
 * ROOT/wal/deadletter/*.jsonl         records that could not be applied, with the reason
 * </pre>
 *
 * Group keys never become paths: a group's folder is named by the same SHA-256 as its group file
 * ({@link GroupPaths}). Segment names are the write time in milliseconds and 64 random bits, so they never repeat.
 */
public final class Wal {
  public static final String DIR = "wal";
  public static final String GROUPS = "groups";
  static final String POSITIONS = "POSITIONS";
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

  /** The stream's resume position per Kinesis shard id (empty before the stream applied any record). */
  public Map<String, ShardPosition> shardPositions() throws IOException {
    Path f = dir().resolve(POSITIONS);
    List<String> lines;
    try {
      lines = Files.readAllLines(f, StandardCharsets.US_ASCII);
    } catch (NoSuchFileException e) {
      return Map.of();
    }
    Map<String, ShardPosition> positions = new TreeMap<>();
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.trim().split(" ");
      try {
        if (parts.length != 3) {
          throw new IllegalArgumentException("expected three fields");
        }
        positions.put(parts[0], new ShardPosition(parts[1], Instant.parse(parts[2])));
      } catch (IllegalArgumentException | DateTimeParseException e) {
        throw new IOException(f + " has a line that is not \"shardId sequenceNumber arrival\": \"" + line
            + "\" (" + e.getMessage() + "); delete the file to read the stream again from its oldest record");
      }
    }
    return positions;
  }

  /**
   * Moves the position of shard {@code shardId} forward to {@code position}, never back, keeping the other shards'
   * (workers that track different shards, threads of one JVM or task managers sharing the directory, each call this).
   * The file is replaced atomically. Returns whether the stored position moved.
   *
   * @throws IllegalArgumentException if the shard id is empty or holds white space
   */
  public boolean advanceShardPosition(String shardId, ShardPosition position) throws IOException {
    if (shardId.isEmpty() || !shardId.chars().allMatch(c -> c > ' ' && c < 127)) {
      throw new IllegalArgumentException("not a Kinesis shard id: \"" + shardId + "\"");
    }
    Files.createDirectories(dir());
    synchronized (POSITION_LOCK) {
      try (FileChannel lockFile = FileChannel.open(dir().resolve("." + POSITIONS + ".lock"),
              StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = lockFile.lock()) {
        Map<String, ShardPosition> all = new TreeMap<>(shardPositions());
        ShardPosition current = all.get(shardId);
        if (current != null && !position.isAfter(current)) {
          return false;
        }
        all.put(shardId, position);
        StringBuilder b = new StringBuilder();
        all.forEach((s, p) -> b.append(s).append(' ').append(p.sequenceNumber()).append(' ').append(p.arrival())
            .append('\n'));
        Path tmp = dir().resolve("." + POSITIONS + "." + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
          out.write(java.nio.ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.US_ASCII)));
          out.force(true);
        }
        Files.move(tmp, dir().resolve(POSITIONS), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        return true;
      }
    }
  }
}
