package io.pagemark.server.resp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The commands {@code pagemark resp} answers, found by name without allocating, with their arity checked as Redis
 * checks it (n: exactly n arguments with the name; -n: at least n) and Redis's own texts for an unknown command or a
 * wrong number of arguments. The table also answers {@code COMMAND}.
 */
final class Commands {
  /** Runs one command; the arity is already checked. */
  interface Handler {
    void run(Session s, byte[][] args) throws IOException;
  }

  /** One command as {@code COMMAND} describes it. */
  record Command(String name, int arity, List<String> flags, int firstKey, int lastKey, int step, String group,
      String summary, Handler handler) {}

  static final List<Command> ALL = List.of(
      new Command("ping", -1, List.of("fast"), 0, 0, 0, "connection", "Returns the server's liveliness response.",
          ConnectionCommands::ping),
      new Command("echo", 2, List.of("fast"), 0, 0, 0, "connection", "Returns the given string.",
          ConnectionCommands::echo),
      new Command("hello", -1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, "connection",
          "Handshakes with the server (protocol 2 only).", ConnectionCommands::hello),
      new Command("client", -2, List.of(), 0, 0, 0, "connection",
          "SETINFO, SETNAME, GETNAME, ID, INFO, LIST of the connection.", ConnectionCommands::client),
      new Command("select", 2, List.of("loading", "stale", "fast"), 0, 0, 0, "connection",
          "Changes the selected database (only 0 exists).", ConnectionCommands::select),
      new Command("quit", -1, List.of("noscript", "loading", "stale", "fast"), 0, 0, 0, "connection",
          "Closes the connection.", ConnectionCommands::quit),
      new Command("command", -1, List.of("loading", "stale"), 0, 0, 0, "server",
          "Details about the commands (also COUNT, INFO, DOCS).", ServerCommands::command),
      new Command("config", -2, List.of(), 0, 0, 0, "server", "CONFIG GET of the server's settings.",
          ServerCommands::config),
      new Command("info", -1, List.of("loading", "stale"), 0, 0, 0, "server",
          "Information and statistics about the server.", ServerCommands::info),
      new Command("dbsize", 1, List.of("readonly", "fast"), 0, 0, 0, "server", "The number of groups.",
          KeyspaceCommands::dbsize),
      new Command("exists", -2, List.of("readonly", "fast"), 1, -1, 1, "generic",
          "How many of the given groups exist.", KeyspaceCommands::exists),
      new Command("type", 2, List.of("readonly", "fast"), 1, 1, 1, "generic", "zset for a group, none otherwise.",
          KeyspaceCommands::type),
      new Command("scan", -2, List.of("readonly"), 0, 0, 0, "generic", "Iterates over the groups.",
          KeyspaceCommands::scan),
      new Command("keys", 2, List.of("readonly"), 0, 0, 0, "generic", "The groups matching a pattern.",
          KeyspaceCommands::keys),
      new Command("zcard", 2, List.of("readonly", "fast"), 1, 1, 1, "sorted-set", "The number of items of a group.",
          SortedSetCommands::zcard),
      new Command("zrange", -4, List.of("readonly"), 1, 1, 1, "sorted-set",
          "Items of a group by rank (REV: DynamoDB's descending order) or by score (BYSCORE).",
          SortedSetCommands::zrange),
      new Command("zrevrange", -4, List.of("readonly"), 1, 1, 1, "sorted-set",
          "Items of a group by rank in DynamoDB's descending order.", SortedSetCommands::zrevrange),
      new Command("zrangebyscore", -4, List.of("readonly"), 1, 1, 1, "sorted-set",
          "Items of a group in a range of scores (ascending ranks).", SortedSetCommands::zrangebyscore),
      new Command("zrevrangebyscore", -4, List.of("readonly"), 1, 1, 1, "sorted-set",
          "Items of a group in a range of scores, highest first.", SortedSetCommands::zrevrangebyscore),
      new Command("zcount", 4, List.of("readonly", "fast"), 1, 1, 1, "sorted-set",
          "The number of items with a score (rank) in a range.", SortedSetCommands::zcount),
      new Command("zrank", 3, List.of("readonly", "fast"), 1, 1, 1, "sorted-set",
          "The ascending rank of an item.", SortedSetCommands::zrank),
      new Command("zrevrank", 3, List.of("readonly", "fast"), 1, 1, 1, "sorted-set",
          "The position of an item in DynamoDB's descending order.", SortedSetCommands::zrevrank),
      new Command("zscore", 3, List.of("readonly", "fast"), 1, 1, 1, "sorted-set",
          "The score (ascending rank) of an item.", SortedSetCommands::zscore),
      new Command("zmscore", -3, List.of("readonly", "fast"), 1, 1, 1, "sorted-set",
          "The scores of several items.", SortedSetCommands::zmscore),
      new Command("pm.page", -4, List.of("readonly", "fast"), 1, 1, 1, "pagemark",
          "PM.PAGE key page size [ASC|DESC]: [count, pages, exclusive start key or nil, skip].",
          SortedSetCommands::page),
      new Command("pm.upage", -5, List.of("readonly"), 4, -1, 1, "pagemark",
          "PM.UPAGE page size ASC|DESC key [key ...]: [count, pages, [[group, start key or nil, skip, take], ...],"
              + " next page's cursor or nil].",
          UnionCommands::upage),
      new Command("pm.unext", -3, List.of("readonly"), 2, -1, 1, "pagemark",
          "PM.UNEXT cursor key [key ...]: PM.UPAGE's reply for the page a cursor names.", UnionCommands::unext),
      new Command("zadd", -4, List.of("write", "denyoom", "fast"), 1, 1, 1, "sorted-set",
          "Stages items in the write-ahead log (the score is ignored; PM.COMMIT applies them).",
          WriteCommands::zadd),
      new Command("zrem", -3, List.of("write", "fast"), 1, 1, 1, "sorted-set",
          "Stages the removal of items in the write-ahead log.", WriteCommands::zrem),
      new Command("pm.commit", 1, List.of("write"), 0, 0, 0, "pagemark",
          "Merges the write-ahead log into a new build and serves it.", WriteCommands::commit),
      new Command("zcommit", 1, List.of("write"), 0, 0, 0, "pagemark", "PM.COMMIT under another name.",
          WriteCommands::commit));

  /** Open addressing over the lower-case names; a power of two well above the command count. */
  private static final Command[] TABLE = new Command[128];

  static {
    for (Command c : ALL) {
      byte[] name = c.name().getBytes(StandardCharsets.US_ASCII);
      int i = hash(name) & (TABLE.length - 1);
      while (TABLE[i] != null) {
        i = (i + 1) & (TABLE.length - 1);
      }
      TABLE[i] = c;
    }
  }

  private Commands() {}

  /** Runs a request (the command name and its arguments) and appends its reply to the session's output. */
  static void run(Session s, byte[][] args) throws IOException {
    Command c = find(args[0]);
    if (c == null) {
      s.out.error(unknown(args));
      return;
    }
    if ((c.arity() > 0 && args.length != c.arity()) || (c.arity() < 0 && args.length < -c.arity())) {
      s.out.error(wrongArity(c.name()));
      return;
    }
    s.client.lastCommand = c.name();
    c.handler().run(s, args);
  }

  static Command find(byte[] name) {
    int i = hash(name) & (TABLE.length - 1);
    for (Command c = TABLE[i]; c != null; c = TABLE[i = (i + 1) & (TABLE.length - 1)]) {
      if (equalsIgnoreCase(name, c.name())) {
        return c;
      }
    }
    return null;
  }

  static String wrongArity(String name) {
    return "ERR wrong number of arguments for '" + name + "' command";
  }

  /** Redis's text: {@code ERR unknown command 'x', with args beginning with: 'a' 'b' }. */
  static String unknown(byte[][] args) {
    StringBuilder shown = new StringBuilder();
    for (int i = 1; i < args.length && shown.length() < 128; i++) {
      shown.append('\'').append(text(args[i], 128 - shown.length())).append("' ");
    }
    return "ERR unknown command '" + text(args[0], 128) + "', with args beginning with: " + shown;
  }

  static String unknownSubcommand(byte[] sub, String command) {
    return "ERR unknown subcommand '" + text(sub, 128) + "'. Try " + command + " HELP.";
  }

  /** An argument as text for an error message: at most {@code max} characters, line breaks as spaces. */
  static String text(byte[] b, int max) {
    String s = new String(b, 0, Math.min(b.length, max), StandardCharsets.UTF_8);
    return s.replace('\r', ' ').replace('\n', ' ');
  }

  static boolean is(byte[] arg, String lowerCase) {
    return equalsIgnoreCase(arg, lowerCase);
  }

  private static boolean equalsIgnoreCase(byte[] b, String lower) {
    if (b.length != lower.length()) {
      return false;
    }
    for (int i = 0; i < b.length; i++) {
      int c = b[i];
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      if (c != lower.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static int hash(byte[] b) {
    int h = 0;
    for (byte x : b) {
      int c = x;
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      }
      h = h * 31 + c;
    }
    return h ^ (h >>> 7);
  }

  static String lower(byte[] b) {
    return new String(b, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
  }

  /** Names of all commands, for error messages and docs. */
  static List<String> names() {
    List<String> n = new ArrayList<>();
    ALL.forEach(c -> n.add(c.name()));
    return n;
  }
}
