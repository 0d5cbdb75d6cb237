package io.pagemark.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads memory figures from Linux's {@code /proc/<pid>/status} (in kB); -1 where there is no such file or field. */
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
}
