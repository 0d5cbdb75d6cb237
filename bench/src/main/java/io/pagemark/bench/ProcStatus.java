package io.pagemark.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads memory figures from Linux's {@code /proc/<pid>/status} (in kB; -1 where there is no such file or field), and
 * a process's CPU time from {@code /proc/<pid>/stat}.
 */
final class ProcStatus {
  private ProcStatus() {}

  static long self(String field) {
    return of(ProcessHandle.current().pid(), field);
  }

  static long of(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Clock ticks per second of /proc's CPU times ({@code getconf CLK_TCK}; 100 on Linux). */
  static final long CLOCK_TICKS = clockTicks();

  private static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return p.waitFor() == 0 ? Long.parseLong(out) : 100;
    } catch (IOException | InterruptedException | NumberFormatException e) {
      return 100;
    }
  }

  /** CPU-seconds a process has used so far: {@code utime + stime} of {@code /proc/PID/stat}. */
  static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) CLOCK_TICKS;
  }
}
