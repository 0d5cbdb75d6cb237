package io.pagemark.format;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Removes old builds of an index: everything but the newest {@code keep} builds, except the current build and any
 * build (or abandoned partial build) younger than the grace period, so that a reader pinned to a recent build keeps
 * its pages for at least that long.
 */
public final class BuildCollector {
  private final IndexLayout layout;

  public BuildCollector(IndexLayout layout) {
    this.layout = layout;
  }

  /** What a collection removed and kept. */
  public record Result(List<String> removed, List<String> kept, List<String> removedPartials) {}

  public Result collect(int keep, Duration grace, long nowMillis) throws IOException {
    if (keep < 1) {
      throw new IllegalArgumentException("keep must be at least 1, not " + keep);
    }
    String current = layout.currentBuildId();
    List<String> ids = layout.builds();
    List<String> removed = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      boolean newest = i >= ids.size() - keep;
      if (newest || id.equals(current) || age(layout.build(id), nowMillis).compareTo(grace) < 0) {
        kept.add(id);
      } else {
        deleteTree(layout.build(id));
        removed.add(id);
      }
    }
    List<String> partials = new ArrayList<>();
    Path builds = layout.root().resolve(IndexLayout.BUILDS);
    if (Files.isDirectory(builds)) {
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(builds, ".*.partial")) {
        for (Path p : ds) {
          if (age(p, nowMillis).compareTo(grace) >= 0) {
            deleteTree(p);
            partials.add(p.getFileName().toString());
          }
        }
      }
    }
    return new Result(removed, kept, partials);
  }

  /** A build's age: from its build.json's creation time, else its directory's modification time. */
  private static Duration age(Path dir, long nowMillis) throws IOException {
    long created;
    Path info = dir.resolve(IndexLayout.BUILD_INFO);
    if (Files.isRegularFile(info)) {
      created = BuildInfo.read(info).createdAtMillis();
    } else {
      FileTime t = Files.getLastModifiedTime(dir);
      created = t.toMillis();
    }
    return Duration.ofMillis(Math.max(0, nowMillis - created));
  }

  /** Deletes a directory tree (no-op when it does not exist). */
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
