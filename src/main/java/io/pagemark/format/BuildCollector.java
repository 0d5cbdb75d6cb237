package io.pagemark.format;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Removes old builds of an index: everything but the newest {@code keep} builds, except the current build and any
 * build (or abandoned partial build) younger than the grace period, so that a reader pinned to a recent build keeps
 * its pages for at least that long. Works on any {@link Store}: a local index directory, or an object store's.
 */
public final class BuildCollector {
  private final Store store;

  /** The builds of an index directory. */
  public BuildCollector(IndexLayout layout) {
    this(new LocalStore(layout));
  }

  public BuildCollector(Store store) {
    this.store = store;
  }

  /** Where an index's builds are kept, as a collection sees them. */
  public interface Store {
    /** The published build's id. */
    String currentBuildId() throws IOException;

    /** Published builds, ids sorted. */
    List<String> builds() throws IOException;

    /** When a published build was made (its build.json's time, else when it was last changed). */
    long createdAtMillis(String id) throws IOException;

    void deleteBuild(String id) throws IOException;

    /** Builds being written or abandoned, by name, with the time they last changed (ms since the epoch). */
    Map<String, Long> partials() throws IOException;

    void deletePartial(String name) throws IOException;
  }

  /** What a collection removed and kept. */
  public record Result(List<String> removed, List<String> kept, List<String> removedPartials) {}

  public Result collect(int keep, Duration grace, long nowMillis) throws IOException {
    if (keep < 1) {
      throw new IllegalArgumentException("keep must be at least 1, not " + keep);
    }
    String current = store.currentBuildId();
    List<String> ids = store.builds();
    List<String> removed = new ArrayList<>();
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      boolean newest = i >= ids.size() - keep;
      if (newest || id.equals(current) || age(store.createdAtMillis(id), nowMillis).compareTo(grace) < 0) {
        kept.add(id);
      } else {
        store.deleteBuild(id);
        removed.add(id);
      }
    }
    List<String> partials = new ArrayList<>();
    for (Map.Entry<String, Long> p : store.partials().entrySet()) {
      if (age(p.getValue(), nowMillis).compareTo(grace) >= 0) {
        store.deletePartial(p.getKey());
        partials.add(p.getKey());
      }
    }
    return new Result(removed, kept, partials);
  }

  private static Duration age(long createdMillis, long nowMillis) {
    return Duration.ofMillis(Math.max(0, nowMillis - createdMillis));
  }

  /** An index directory: partial builds are {@code builds/.ID.partial} directories. */
  private record LocalStore(IndexLayout layout) implements Store {
    @Override
    public String currentBuildId() throws IOException {
      return layout.currentBuildId();
    }

    @Override
    public List<String> builds() throws IOException {
      return layout.builds();
    }

    /** From its build.json's creation time, else its directory's modification time. */
    @Override
    public long createdAtMillis(String id) throws IOException {
      Path info = layout.build(id).resolve(IndexLayout.BUILD_INFO);
      if (Files.isRegularFile(info)) {
        return BuildInfo.read(info).createdAtMillis();
      }
      return Files.getLastModifiedTime(layout.build(id)).toMillis();
    }

    @Override
    public void deleteBuild(String id) throws IOException {
      deleteTree(layout.build(id));
    }

    @Override
    public Map<String, Long> partials() throws IOException {
      Map<String, Long> out = new LinkedHashMap<>();
      Path builds = layout.root().resolve(IndexLayout.BUILDS);
      if (Files.isDirectory(builds)) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(builds, ".*.partial")) {
          for (Path p : ds) {
            out.put(p.getFileName().toString(), Files.getLastModifiedTime(p).toMillis());
          }
        }
      }
      return out;
    }

    @Override
    public void deletePartial(String name) throws IOException {
      deleteTree(layout.root().resolve(IndexLayout.BUILDS).resolve(name));
    }
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
