package io.pagemark.bench;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Evicts one file from Linux's page cache and counts its resident pages, with GNU coreutils' {@code dd} and
 * util-linux's {@code fincore} (Java has no {@code posix_fadvise}). Per file rather than {@code drop_caches}: it
 * needs no root, and it leaves the rest of a shared machine's cache alone.
 */
final class PageCache {
  private PageCache() {}

  /**
   * Writes the file's dirty pages back ({@code fsync}), then {@code posix_fadvise(POSIX_FADV_DONTNEED)} over the whole
   * file (the kernel drops only clean pages).
   */
  static void evict(Path file) throws IOException, InterruptedException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ch.force(true);
    }
    run(List.of("dd", "if=" + file, "iflag=nocache", "count=0", "status=none"));
  }

  /** Pages of the file in the page cache. */
  static long residentPages(Path file) throws IOException, InterruptedException {
    String out = run(List.of("fincore", "--noheadings", "--bytes", "--output=PAGES", file.toString())).trim();
    return Long.parseLong(out);
  }

  private static String run(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " failed: " + new String(out, StandardCharsets.UTF_8).trim()
          + " (needs GNU coreutils dd and util-linux fincore)");
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
