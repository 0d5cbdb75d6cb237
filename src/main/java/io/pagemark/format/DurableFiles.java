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
 * Makes files durable: a whole directory tree (a build's thousands of group files) with one sync of its file system
 * or in one parallel pass, or one directory after a rename in it. Many fsyncs in flight at once share the file
 * system's journal commits, so a tree of 10,000 small files syncs several times faster with many threads than with
 * one, and one syncfs faster still (docs/build-speed.md).
 */
final class DurableFiles {
  /** fsyncs in flight at once while a tree is synced. */
  static final int THREADS = 32;

  private DurableFiles() {}

  /** How {@link #syncTree} made a tree durable: with one sync of its whole file system, or file by file. */
  record Synced(boolean wholeFileSystem, long files, long directories) {}

  /**
   * Makes every file and directory under {@code root} durable. On Linux 5.8 or later with GNU coreutils it is one
   * syncfs(2) of the tree's file system ({@code sync --file-system}): a build's 10,000 group files in 9,500
   * directories took 0.13 s that way, against 1.45 s for an fsync of each with {@value #THREADS} at once, and 0.6 s
   * even when the files were clean (docs/build-speed.md). It writes back whatever else is dirty on that file system
   * too, and Linux reports write-back errors to syncfs only since 5.8, hence the version. Elsewhere, {@link #syncEach}.
   *
   * @throws IOException if the file system sync fails, or the tree cannot be listed or a file cannot be synced
   */
  static Synced syncTree(Path root) throws IOException {
    if (fileSystemSync()) {
      Ran sync = run("sync", "--file-system", root.toString());
      if (sync.code() != 0) {
        throw new IOException("syncing " + root + " to disk failed: sync --file-system exited with code "
            + sync.code() + (sync.output().isEmpty() ? "" : ": " + sync.output()));
      }
      return new Synced(true, 0, 0);
    }
    long[] n = syncEach(root);
    return new Synced(false, n[0], n[1]);
  }

  private static volatile Boolean fileSystemSync;

  /** Whether {@link #syncTree} syncs the whole file system: Linux 5.8 or later, and GNU coreutils' sync on PATH. */
  static boolean fileSystemSync() {
    Boolean known = fileSystemSync;
    if (known == null) {
      known = linuxAtLeast(System.getProperty("os.name"), System.getProperty("os.version"), 5, 8) && gnuSync();
      fileSystemSync = known;
    }
    return known;
  }

  /** Whether {@code osName} is Linux and {@code osVersion} (as "6.1.0-13-amd64") at least {@code major.minor}. */
  static boolean linuxAtLeast(String osName, String osVersion, int major, int minor) {
    if (!"Linux".equals(osName) || osVersion == null) {
      return false;
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^(\\d+)\\.(\\d+)").matcher(osVersion);
    if (!m.find()) {
      return false;
    }
    int a = Integer.parseInt(m.group(1));
    int b = Integer.parseInt(m.group(2));
    return a > major || (a == major && b >= minor);
  }

  private static boolean gnuSync() {
    try {
      Ran version = run("sync", "--version");
      return version.code() == 0 && version.output().contains("GNU coreutils");
    } catch (IOException e) { // no sync on PATH, or interrupted
      return false;
    }
  }

  /** How a command ended: its exit code and its output (stdout and stderr), trimmed. */
  private record Ran(int code, String output) {}

  /** Runs a command to its end. */
  private static Ran run(String... command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
    try {
      return new Ran(p.waitFor(), output);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroy();
      throw new InterruptedIOException("interrupted while " + String.join(" ", command) + " ran");
    }
  }

  /**
   * fsyncs every regular file under {@code root}, then every directory (their entries name the files); returns how
   * many files and directories were synced ({@code [files, directories]}). Each pass runs {@value #THREADS} fsyncs at
   * once: a build's group files sit in thousands of directories, and a directory costs a journal commit too.
   *
   * @throws IOException if the tree cannot be listed or a file cannot be synced
   */
  static long[] syncEach(Path root) throws IOException {
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
