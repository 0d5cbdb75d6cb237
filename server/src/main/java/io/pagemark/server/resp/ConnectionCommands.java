package io.pagemark.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The connection commands real clients send on connect or to check a connection: {@code PING}, {@code ECHO},
 * {@code HELLO} (protocol 2; 3 answers {@code NOPROTO} so that clients fall back), {@code CLIENT}, {@code SELECT 0},
 * {@code QUIT}.
 */
final class ConnectionCommands {
  /** The Redis version whose protocol and replies the server follows (clients read it from HELLO and INFO). */
  static final String REDIS_VERSION = "7.0.0";

  private ConnectionCommands() {}

  static void ping(Session s, byte[][] a) {
    if (a.length > 2) {
      s.out.error(Commands.wrongArity("ping"));
    } else if (a.length == 2) {
      s.out.bulk(a[1]);
    } else {
      s.out.simple("PONG");
    }
  }

  static void echo(Session s, byte[][] a) {
    s.out.bulk(a[1]);
  }

  static void select(Session s, byte[][] a) {
    Long db = Numbers.parseLong(a[1]);
    if (db == null || db != (int) (long) db) {
      s.out.error(SortedSetCommands.NOT_INTEGER);
    } else if (db != 0) {
      s.out.error("ERR DB index is out of range");
    } else {
      s.out.ok();
    }
  }

  static void quit(Session s, byte[][] a) {
    s.out.ok();
    s.client.closing = true;
  }

  /** {@code HELLO [protover [AUTH user pass] [SETNAME name]]}. */
  static void hello(Session s, byte[][] a) {
    if (a.length >= 2) {
      Long version = Numbers.parseLong(a[1]);
      if (version == null) {
        s.out.error("ERR Protocol version is not an integer or out of range");
        return;
      }
      if (version == 3) {
        s.out.error("NOPROTO this server speaks RESP2 only (HELLO 2, or no HELLO)");
        return;
      }
      if (version != 2) {
        s.out.error("NOPROTO unsupported protocol version");
        return;
      }
    }
    String name = null;
    for (int j = 2; j < a.length; j++) {
      int left = a.length - j - 1;
      if (Commands.is(a[j], "auth") && left >= 2) {
        j += 2; // no users or passwords here: any credentials are accepted, as by Redis's default user
      } else if (Commands.is(a[j], "setname") && left >= 1) {
        name = new String(a[++j], StandardCharsets.UTF_8);
        if (!validName(name)) {
          s.out.error("ERR Client names cannot contain spaces, newlines or special characters.");
          return;
        }
      } else {
        s.out.error("ERR Syntax error in HELLO option '" + Commands.text(a[j], 64) + "'");
        return;
      }
    }
    if (name != null) {
      s.client.name = name.isEmpty() ? null : name;
    }
    s.out.array(14);
    s.out.bulk("server");
    s.out.bulk("redis");
    s.out.bulk("version");
    s.out.bulk(REDIS_VERSION);
    s.out.bulk("proto");
    s.out.integer(2);
    s.out.bulk("id");
    s.out.integer(s.client.id);
    s.out.bulk("mode");
    s.out.bulk("standalone");
    s.out.bulk("role");
    s.out.bulk("master");
    s.out.bulk("modules");
    s.out.array(0);
  }

  static void client(Session s, byte[][] a) {
    byte[] sub = a[1];
    if (Commands.is(sub, "setinfo")) {
      if (a.length != 4) {
        s.out.error(Commands.wrongArity("client|setinfo"));
      } else if (!Commands.is(a[2], "lib-name") && !Commands.is(a[2], "lib-ver")) {
        s.out.error("ERR Unrecognized option '" + Commands.text(a[2], 64) + "'");
      } else {
        String v = new String(a[3], StandardCharsets.UTF_8);
        if (!v.isEmpty() && !validName(v)) {
          s.out.error("ERR " + Commands.lower(a[2]) + " cannot contain spaces, newlines or special characters.");
          return;
        }
        if (Commands.is(a[2], "lib-name")) {
          s.client.libName = v;
        } else {
          s.client.libVersion = v;
        }
        s.out.ok();
      }
    } else if (Commands.is(sub, "setname")) {
      if (a.length != 3) {
        s.out.error(Commands.wrongArity("client|setname"));
        return;
      }
      String name = new String(a[2], StandardCharsets.UTF_8);
      if (!validName(name)) {
        s.out.error("ERR Client names cannot contain spaces, newlines or special characters.");
        return;
      }
      s.client.name = name.isEmpty() ? null : name;
      s.out.ok();
    } else if (Commands.is(sub, "getname")) {
      if (a.length != 2) {
        s.out.error(Commands.wrongArity("client|getname"));
      } else if (s.client.name == null) {
        s.out.nil();
      } else {
        s.out.bulk(s.client.name);
      }
    } else if (Commands.is(sub, "id")) {
      if (a.length != 2) {
        s.out.error(Commands.wrongArity("client|id"));
      } else {
        s.out.integer(s.client.id);
      }
    } else if (Commands.is(sub, "info")) {
      s.out.bulk(s.server.describe(s.client) + "\n");
    } else if (Commands.is(sub, "list")) {
      StringBuilder b = new StringBuilder();
      s.server.clients().forEach(c -> b.append(s.server.describe(c)).append('\n'));
      s.out.bulk(b.toString());
    } else if (Commands.is(sub, "help")) {
      List<String> help = List.of("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
          "GETNAME", "    Return the name of the current connection.", "ID",
          "    Return the ID of the current connection.", "INFO", "    Return information about the current client"
              + " connection.", "LIST", "    Return information about client connections.",
          "SETINFO <option> <value>", "    Set client meta attr (lib-name, lib-ver).", "SETNAME <name>",
          "    Assign the name <name> to the current connection.", "HELP", "    Print this help.");
      s.out.array(help.size());
      help.forEach(h -> s.out.simple(h));
    } else {
      s.out.error(Commands.unknownSubcommand(sub, "CLIENT"));
    }
  }

  /** Redis's rule for client names: printable ASCII without spaces. */
  private static boolean validName(String name) {
    return name.chars().allMatch(c -> c > ' ' && c <= '~');
  }
}
