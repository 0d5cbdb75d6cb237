package io.pagemark.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What tools ask a server about itself: {@code COMMAND} (with {@code COUNT}, {@code INFO}, {@code DOCS}, {@code LIST};
 * enough for redis-cli's hints), {@code CONFIG GET} (redis-benchmark asks for {@code save} and {@code appendonly})
 * and {@code INFO} (server, clients, memory, stats, keyspace and a pagemark section).
 */
final class ServerCommands {
  private ServerCommands() {}

  static void command(Session s, byte[][] a) {
    if (a.length == 1) {
      s.out.array(Commands.ALL.size());
      Commands.ALL.forEach(c -> info(s.out, c));
      return;
    }
    byte[] sub = a[1];
    if (Commands.is(sub, "count")) {
      s.out.integer(Commands.ALL.size());
    } else if (Commands.is(sub, "list")) {
      s.out.array(Commands.ALL.size());
      Commands.ALL.forEach(c -> s.out.bulk(c.name()));
    } else if (Commands.is(sub, "info")) {
      List<Commands.Command> cs = named(a);
      s.out.array(cs.size());
      cs.forEach(c -> {
        if (c == null) {
          s.out.nilArray();
        } else {
          info(s.out, c);
        }
      });
    } else if (Commands.is(sub, "docs")) {
      List<Commands.Command> cs = a.length == 2 ? Commands.ALL : named(a);
      List<Commands.Command> known = cs.stream().filter(c -> c != null).toList();
      s.out.array(2L * known.size());
      for (Commands.Command c : known) {
        s.out.bulk(c.name());
        s.out.array(6);
        s.out.bulk("summary");
        s.out.bulk(c.summary());
        s.out.bulk("since");
        s.out.bulk("1.0.0");
        s.out.bulk("group");
        s.out.bulk(c.group());
      }
    } else {
      s.out.error(Commands.unknownSubcommand(sub, "COMMAND"));
    }
  }

  private static List<Commands.Command> named(byte[][] a) {
    List<Commands.Command> cs = new ArrayList<>();
    for (int i = 2; i < a.length; i++) {
      cs.add(Commands.find(a[i]));
    }
    return cs;
  }

  /** A command as Redis 7.0's COMMAND describes it: name, arity, flags, keys, ACL categories, tips, specs, subs. */
  private static void info(Reply out, Commands.Command c) {
    out.array(10);
    out.bulk(c.name());
    out.integer(c.arity());
    out.array(c.flags().size());
    c.flags().forEach(out::simple);
    out.integer(c.firstKey());
    out.integer(c.lastKey());
    out.integer(c.step());
    List<String> categories = new ArrayList<>();
    categories.add(c.flags().contains("write") ? "@write" : "@read");
    categories.add("@" + c.group().replace("-", ""));
    out.array(categories.size());
    categories.forEach(out::simple);
    out.array(0);
    out.array(0);
    out.array(0);
  }

  /** {@code CONFIG GET pattern [pattern ...]}; the settings are read-only. */
  static void config(Session s, byte[][] a) {
    if (!Commands.is(a[1], "get")) {
      if (Commands.is(a[1], "set") || Commands.is(a[1], "resetstat") || Commands.is(a[1], "rewrite")) {
        s.out.error("ERR CONFIG " + Commands.lower(a[1]).toUpperCase(Locale.ROOT)
            + " is not supported: pagemark resp takes its settings from its command line");
      } else {
        s.out.error(Commands.unknownSubcommand(a[1], "CONFIG"));
      }
      return;
    }
    if (a.length < 3) {
      s.out.error(Commands.wrongArity("config|get"));
      return;
    }
    Map<String, String> all = settings(s.server);
    Map<String, String> found = new LinkedHashMap<>();
    for (int i = 2; i < a.length; i++) {
      for (Map.Entry<String, String> e : all.entrySet()) {
        if (Glob.matches(lowerCase(a[i]), e.getKey().getBytes(StandardCharsets.US_ASCII))) {
          found.put(e.getKey(), e.getValue());
        }
      }
    }
    s.out.array(2L * found.size());
    found.forEach((k, v) -> {
      s.out.bulk(k);
      s.out.bulk(v);
    });
  }

  private static byte[] lowerCase(byte[] b) {
    byte[] l = b.clone();
    for (int i = 0; i < l.length; i++) {
      if (l[i] >= 'A' && l[i] <= 'Z') {
        l[i] += 'a' - 'A';
      }
    }
    return l;
  }

  private static Map<String, String> settings(RespServer server) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("save", "");
    m.put("appendonly", "no");
    m.put("port", Integer.toString(server.port()));
    m.put("bind", server.options().bind());
    m.put("maxclients", Integer.toString(server.options().maxClients()));
    m.put("databases", "1");
    m.put("maxmemory", "0");
    m.put("timeout", "0");
    m.put("io-threads", Integer.toString(server.options().threads()));
    m.put("proto-max-bulk-len", Integer.toString(RequestParser.MAX_BULK));
    m.put("client-query-buffer-limit", Integer.toString(EventLoop.MAX_REQUEST));
    return m;
  }

  /** {@code INFO [section ...]}. */
  static void info(Session s, byte[][] a) {
    List<String> sections = new ArrayList<>();
    for (int i = 1; i < a.length; i++) {
      sections.add(Commands.lower(a[i]));
    }
    boolean all = sections.isEmpty() || sections.contains("all") || sections.contains("everything")
        || sections.contains("default");
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, Map<String, String>> section : s.server.info().entrySet()) {
      if (all || sections.contains(section.getKey().toLowerCase(Locale.ROOT))) {
        if (b.length() > 0) {
          b.append("\r\n");
        }
        b.append("# ").append(section.getKey()).append("\r\n");
        section.getValue().forEach((k, v) -> b.append(k).append(':').append(v).append("\r\n"));
      }
    }
    s.out.bulk(b.toString());
  }
}
