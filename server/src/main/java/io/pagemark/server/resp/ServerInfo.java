package io.pagemark.server.resp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The sections of {@code INFO}: Redis's names where Redis has them (server, clients, memory, stats, keyspace), so
 * that monitoring tools read them, and a pagemark section with the index and the build served. Memory is the
 * process's own (resident set from {@code /proc/self/status}), the Java heap in use as {@code used_memory}.
 */
final class ServerInfo {
  private static final String RUN_ID = java.util.HexFormat.of().formatHex(randomBytes());

  private ServerInfo() {}

  static Map<String, Map<String, String>> sections(RespServer server, EventLoop[] loops, int connected,
      long totalConnections, long rejected, long startedMillis) {
    Map<String, Map<String, String>> all = new LinkedHashMap<>();
    long uptime = (System.currentTimeMillis() - startedMillis) / 1000;

    Map<String, String> s = new LinkedHashMap<>();
    s.put("redis_version", ConnectionCommands.REDIS_VERSION);
    s.put("pagemark_version", version());
    s.put("redis_mode", "standalone");
    s.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
        + System.getProperty("os.arch"));
    s.put("arch_bits", System.getProperty("sun.arch.data.model", "64"));
    s.put("multiplexing_api", "java.nio (" + System.getProperty("java.version") + ")");
    s.put("process_id", Long.toString(ProcessHandle.current().pid()));
    s.put("run_id", RUN_ID);
    s.put("tcp_port", Integer.toString(server.port()));
    s.put("server_time_usec", Long.toString(System.currentTimeMillis() * 1000));
    s.put("uptime_in_seconds", Long.toString(uptime));
    s.put("uptime_in_days", Long.toString(uptime / 86_400));
    s.put("io_threads_active", Integer.toString(loops.length));
    all.put("Server", s);

    Map<String, String> c = new LinkedHashMap<>();
    c.put("connected_clients", Integer.toString(connected));
    c.put("maxclients", Integer.toString(server.options().maxClients()));
    c.put("blocked_clients", "0");
    all.put("Clients", c);

    Map<String, String> m = new LinkedHashMap<>();
    Runtime rt = Runtime.getRuntime();
    long heap = rt.totalMemory() - rt.freeMemory();
    long rss = procStatusKb("VmRSS") * 1024;
    long peak = procStatusKb("VmHWM") * 1024;
    m.put("used_memory", Long.toString(heap));
    m.put("used_memory_human", human(heap));
    m.put("used_memory_rss", Long.toString(rss));
    m.put("used_memory_rss_human", human(rss));
    m.put("used_memory_peak", Long.toString(peak));
    m.put("used_memory_peak_human", human(peak));
    m.put("maxmemory", "0");
    m.put("mem_allocator", "jvm");
    all.put("Memory", m);

    Map<String, String> st = new LinkedHashMap<>();
    long commands = 0;
    for (EventLoop l : loops) {
      commands += l.commandsProcessed();
    }
    st.put("total_connections_received", Long.toString(totalConnections));
    st.put("total_commands_processed", Long.toString(commands));
    st.put("rejected_connections", Long.toString(rejected));
    all.put("Stats", st);

    ServedBuild b = server.current();
    Map<String, String> k = new LinkedHashMap<>();
    long groups = b.groupCount();
    k.put("db0", "keys=" + Math.max(0, groups) + ",expires=0,avg_ttl=0");
    all.put("Keyspace", k);

    Map<String, String> p = new LinkedHashMap<>();
    p.put("index", b.spec());
    p.put("build", b.id());
    p.put("groups", groups < 0 ? "unknown" : Long.toString(groups));
    p.put("entries", b.entries() < 0 ? "unknown" : Long.toString(b.entries()));
    p.put("group_attribute", b.groupAttribute());
    p.put("group_type", b.groupType().name());
    Writes w = server.writes();
    p.put("writes", w == null ? "off" : "on");
    if (w != null) {
      p.put("changes_appended", Long.toString(w.changesAppended()));
      p.put("wal_segments_written", Long.toString(w.segmentsWritten()));
    }
    all.put("Pagemark", p);
    return all;
  }

  /** A field of {@code /proc/self/status} in kB, or 0 where there is none. */
  static long procStatusKb(String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }

  private static String human(long bytes) {
    if (bytes < 1024) {
      return bytes + "B";
    }
    double v = bytes;
    String units = "KMGTP";
    int i = -1;
    while (v >= 1024 && i < units.length() - 1) {
      v /= 1024;
      i++;
    }
    return String.format(Locale.ROOT, "%.2f%c", v, units.charAt(i));
  }

  private static String version() {
    String v = ServerInfo.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[20];
    java.util.concurrent.ThreadLocalRandom.current().nextBytes(b);
    return b;
  }
}
