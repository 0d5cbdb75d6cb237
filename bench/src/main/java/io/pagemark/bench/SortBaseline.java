package io.pagemark.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The near-physical baseline of a build: GNU {@code sort} with {@code LC_ALL=C} (byte order, DynamoDB's order for
 * these string keys) of the same entries as tab-separated text lines (group, sort key, table key), writing the sorted
 * lines out and syncing them to disk as the index writer does. The input file is written beforehand, untimed.
 */
final class SortBaseline {
  /** A line of bash's {@code times}: user and system time as {@code 0m3.570s 0m1.050s}. */
  private static final Pattern TIMES = Pattern.compile("(\\d+)m([\\d.]+)s (\\d+)m([\\d.]+)s");

  private SortBaseline() {}

  /** Seconds that sorting and writing out the spec's entries took (its input written first, untimed). */
  static double seconds(SyntheticEntries spec, Path dir) throws IOException, InterruptedException {
    Path in = input(spec, dir);
    try {
      return seconds(in, spec.entries(), dir);
    } finally {
      Files.delete(in);
    }
  }

  /** Writes the spec's entries as the text lines {@code sort} reads, into {@code dir}; returns the file. */
  static Path input(SyntheticEntries spec, Path dir) throws IOException {
    Path in = dir.resolve("entries.tsv");
    try (BufferedWriter w = Files.newBufferedWriter(in, StandardCharsets.UTF_8)) {
      for (long i = 0; i < spec.entries(); i++) {
        w.write(spec.line(i));
        w.write('\n');
      }
    }
    return in;
  }

  /**
   * Seconds that sorting {@code in} (of {@code lines} lines, from {@link #input}) and writing the sorted lines out took;
   * checks the output's line count, then deletes it ({@code in} stays).
   */
  static double seconds(Path in, long lines, Path dir) throws IOException, InterruptedException {
    return measure(in, lines, dir).seconds();
  }

  /** What sorting took: wall seconds (sorting, writing and syncing the output), and {@code sort}'s CPU seconds. */
  record Sorted(double seconds, double cpuSeconds) {}

  /** {@link #seconds(Path, long, Path)}, with the CPU time {@code sort} took (user and system, all its threads). */
  static Sorted measure(Path in, long lines, Path dir) throws IOException, InterruptedException {
    Path out = dir.resolve("sorted.tsv");
    long t0 = System.nanoTime();
    // bash's times builtin prints the CPU time of the shell's children (sort) once sort has exited
    String times = run(List.of("bash", "-c", "sort -T \"$1\" -o \"$2\" \"$3\" && times", "sort", dir.toString(),
        out.toString(), in.toString()));
    run(List.of("sync", out.toString()));
    double seconds = (System.nanoTime() - t0) / 1e9;
    long written;
    try (var s = Files.lines(out, StandardCharsets.UTF_8)) {
      written = s.count();
    }
    if (written != lines) {
      throw new IllegalStateException("sort wrote " + written + " lines of " + lines);
    }
    Files.delete(out);
    return new Sorted(seconds, childCpuSeconds(times));
  }

  /**
   * The children's user and system seconds in the output of bash's {@code times} (its last line, as {@code 0m3.570s
   * 0m1.050s}, after the shell's own), summed.
   *
   * @throws IllegalArgumentException if the output does not end so
   */
  static double childCpuSeconds(String times) {
    String[] lines = times.strip().split("\n");
    Matcher m = TIMES.matcher(lines[lines.length - 1].strip());
    if (lines.length < 2 || !m.matches()) {
      throw new IllegalArgumentException("not the output of bash's times: " + times);
    }
    return 60 * Long.parseLong(m.group(1)) + Double.parseDouble(m.group(2)) + 60 * Long.parseLong(m.group(3))
        + Double.parseDouble(m.group(4));
  }

  /** Runs {@code cmd} with {@code LC_ALL=C}; returns what it printed. */
  private static String run(List<String> cmd) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("LC_ALL", "C");
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", cmd) + " failed: " + new String(out, StandardCharsets.UTF_8).trim());
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
