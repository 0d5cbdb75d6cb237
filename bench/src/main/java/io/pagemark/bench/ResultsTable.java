package io.pagemark.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The results file: when, on what machine, with which command, and every figure beside its baseline. */
final class ResultsTable {
  private ResultsTable() {}

  static String markdown(Sizes sizes, String args, List<Figure> figures, List<Pending> pending, Set<String> missing,
      List<String> failures, List<String> notes, double seconds) {
    StringBuilder b = new StringBuilder();
    b.append("# pagemark benchmarks\n\n");
    b.append(String.format(Locale.ROOT, "%s, `bench/run%s` (%s mode), %.0f s. Machine: %s.%n%n", Suite.now(),
        args.isEmpty() ? "" : " " + args, sizes.mode(), seconds, machine()));
    b.append("Ratio = value / baseline, both measured in this run.\n\n");
    b.append("| figure | value | baseline | baseline value | ratio | how |\n");
    b.append("| --- | ---: | --- | ---: | ---: | --- |\n");
    for (Figure f : figures) {
      b.append("| ").append(cell(f.name())).append(" | ").append(Figure.number(f.value())).append(' ')
          .append(f.unit()).append(" | ").append(cell(f.baseline())).append(" | ")
          .append(Figure.number(f.baselineValue())).append(' ').append(f.baselineUnit()).append(" | ")
          .append(Figure.number(f.ratio())).append("x | ").append(cell(f.note())).append(" |\n");
    }
    if (!missing.isEmpty() || !failures.isEmpty()) {
      b.append("\n**Missing figures** (a benchmark failed):\n\n");
      missing.forEach(m -> b.append("- ").append(m).append('\n'));
      failures.forEach(f -> b.append("- failure: ").append(f).append('\n'));
    }
    if (!pending.isEmpty()) {
      b.append("\nPending (features not built yet; measured once they land):\n\n");
      pending.forEach(p -> b.append("- ").append(p.name()).append(": waiting for ").append(p.waitingFor())
          .append("; extension point: ").append(p.extensionPoint()).append('\n'));
    }
    if (!notes.isEmpty()) {
      b.append("\nNotes:\n\n");
      notes.forEach(n -> b.append("- ").append(n).append('\n'));
    }
    return b.toString();
  }

  private static String cell(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }

  /** nproc, memory, CPU model, Java, and the load average (the machine may be shared). */
  static String machine() {
    String cpu = firstValue(Path.of("/proc/cpuinfo"), "model name");
    String mem = firstValue(Path.of("/proc/meminfo"), "MemTotal");
    String memText = mem == null ? "? memory"
        : String.format(Locale.ROOT, "%.1f GiB", Long.parseLong(mem.split("\\s+")[0]) / 1024.0 / 1024.0);
    String load = loadAverage();
    return String.format(Locale.ROOT, "%d cores (nproc), %s, %s, Java %s, load average %s at the end",
        Runtime.getRuntime().availableProcessors(), memText, cpu == null ? "unknown CPU" : cpu,
        System.getProperty("java.version"), load);
  }

  /** The 1-minute load average, or "?". */
  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0];
    } catch (IOException e) {
      return "?";
    }
  }

  private static String firstValue(Path file, String key) {
    try {
      for (String line : Files.readAllLines(file)) {
        if (line.startsWith(key)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      return null;
    }
    return null;
  }
}
