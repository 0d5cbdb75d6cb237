package io.pagemark.format;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * Makes files durable: a whole directory tree in one parallel pass (a build's thousands of group files), or one
 * directory after a rename in it. Many fsyncs in flight at once share the file system's journal commits, so a tree of
 * 10,000 small files syncs several times faster with many threads than with one (docs/build-speed.md).
 */
final class DurableFiles {
  /** fsyncs in flight at once while a tree is synced. */
  static final int THREADS = 32;

  private DurableFiles() {}

  /**
   * fsyncs every regular file under {@code root}, then every directory (their entries name the files); returns how
   * many files and directories were synced ({@code [files, directories]}). Each pass runs {@value #THREADS} fsyncs at
   * once: a build's group files sit in thousands of directories, and a directory costs a journal commit too.
   *
   * @throws IOException if the tree cannot be listed or a file cannot be synced
   */
  static long[] syncTree(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    List<Path> directories = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.forEach(p -> (Files.isDirectory(p) ? directories : files).add(p));
    }
    ExecutorService pool = Executors.newFixedThreadPool(THREADS, r -> {
      Thread t = new Thread(r, "pagemark-sync");
      t.setDaemon(true);
      return t;
    });
    try {
      inParallel(pool, files, DurableFiles::sync, root);
      inParallel(pool, directories, DurableFiles::syncDirectory, root);
    } finally {
      pool.shutdownNow();
    }
    return new long[] {files.size(), directories.size()};
  }

  private interface PathAction {
    void apply(Path p) throws IOException;
  }

  /** Applies {@code action} to every path on the pool, and waits for all of them; the first failure is thrown. */
  private static void inParallel(ExecutorService pool, List<Path> paths, PathAction action, Path root)
      throws IOException {
    List<Future<?>> pending = new ArrayList<>(paths.size());
    for (Path p : paths) {
      pending.add(pool.submit(() -> {
        action.apply(p);
        return null;
      }));
    }
    for (Future<?> f : pending) {
      await(f, root);
    }
  }

  /** fsyncs one regular file. */
  static void sync(Path file) throws IOException {
    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
      c.force(true);
    }
  }

  /**
   * fsyncs a directory, so that the names created or renamed in it survive a crash. A file system that cannot open a
   * directory for syncing (Windows) is left to its own ordering.
   */
  static void syncDirectory(Path dir) throws IOException {
    FileChannel c;
    try {
      c = FileChannel.open(dir, StandardOpenOption.READ);
    } catch (IOException | UnsupportedOperationException notOnThisPlatform) {
      return;
    }
    try (c) {
      c.force(true);
    }
  }

  private static void await(Future<?> f, Path root) throws IOException {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while " + root + " was synced to disk");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      throw new IOException("syncing " + root + " to disk failed", cause);
    }
  }
}
