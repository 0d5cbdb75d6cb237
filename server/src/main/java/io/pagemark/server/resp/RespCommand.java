package io.pagemark.server.resp;

import io.pagemark.dynamo.DynamoConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code pagemark resp --index=INDEX [--port=6380] [--bind=127.0.0.1] [--wal=INDEX] [--maxClients=10000]
 * [--threads=N] [--dynamoEndpoint=URL] [--awsRegion=R]}: serves a file index over the Redis protocol until SIGTERM
 * or SIGINT, which drain it (the JVM then exits with the signal's status, 143 or 130). Prints one line when it is
 * listening (with the port, also when {@code --port=0} let the system choose). Exit codes: 1 when it cannot start, 2
 * for a usage error; {@link #run} returns 0 when the server was stopped by {@link RespServer#close} otherwise.
 */
public final class RespCommand {
  static final Set<String> OPTIONS =
      Set.of("index", "port", "bind", "wal", "maxClients", "threads", "dynamoEndpoint", "awsRegion");
  static final String USAGE = "usage: pagemark resp --index=DIR [--port=6380] [--bind=127.0.0.1] [--wal=DIR]"
      + " [--maxClients=10000] [--threads=N] [--dynamoEndpoint=URL] [--awsRegion=R]";

  private RespCommand() {}

  /** What {@code bin/pagemark resp} runs (with the server module's classpath only). */
  public static void main(String[] args) {
    System.exit(run(List.of(args), System.out, System.err));
  }

  /** Runs the server; returns the exit code once it has stopped (or could not start). */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.contains("--help")) {
      out.println(USAGE);
      return 0;
    }
    RespServer.Options options;
    try {
      options = options(parse(args));
    } catch (IllegalArgumentException e) {
      err.println("pagemark resp: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    RespServer server;
    try {
      server = RespServer.start(options, err);
    } catch (IllegalArgumentException e) {
      err.println("pagemark resp: " + e.getMessage());
      return 2;
    } catch (NoSuchFileException e) {
      err.println("pagemark resp: " + e.getMessage() + (e.getReason() == null ? ": no such file" : "")
          + "; give --index the directory pagemark backfill wrote");
      return 1;
    } catch (IOException e) {
      err.println("pagemark resp: cannot start: " + e.getMessage());
      return 1;
    }
    // SIGTERM and SIGINT run the hook, which drains; the JVM then exits with the signal's status (143, 130)
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "pagemark-resp-shutdown"));
    ServedBuild b = server.current();
    out.printf("pagemark resp: serving build %s of %s (%,d groups, %,d entries) on %s:%d with %d threads, %s%n",
        b.id(), options.index(), b.info().counts().groups(), b.entries(), options.bind(), server.port(),
        options.threads(), options.wal() == null ? "read-only" : "ZADD/ZREM to the write-ahead log of "
            + options.wal());
    out.flush();
    try {
      server.awaitClose();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
    }
    return 0;
  }

  private static Map<String, String> parse(List<String> args) {
    Map<String, String> m = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument \"" + a + "\" (options look like --name=value)");
      }
      int eq = a.indexOf('=');
      String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
      if (!OPTIONS.contains(name)) {
        throw new IllegalArgumentException("unknown option --" + name);
      }
      if (eq < 0 || eq == a.length() - 1) {
        throw new IllegalArgumentException("option --" + name + " needs a value: --" + name + "=...");
      }
      if (m.put(name, a.substring(eq + 1)) != null) {
        throw new IllegalArgumentException("option --" + name + " given twice");
      }
    }
    if (!m.containsKey("index")) {
      throw new IllegalArgumentException("missing required option --index");
    }
    return m;
  }

  private static RespServer.Options options(Map<String, String> m) {
    RespServer.Options o = RespServer.Options.of(m.get("index"));
    if (m.containsKey("port")) {
      o = o.withPort((int) number(m, "port", 0, 65535));
    }
    if (m.containsKey("bind")) {
      o = o.withBind(m.get("bind"));
    }
    if (m.containsKey("wal")) {
      o = o.withWal(Path.of(m.get("wal")));
    }
    if (m.containsKey("maxClients")) {
      o = o.withMaxClients((int) number(m, "maxClients", 1, 1_000_000));
    }
    if (m.containsKey("threads")) {
      o = o.withThreads((int) number(m, "threads", 1, 64));
    }
    if (m.containsKey("dynamoEndpoint") || m.containsKey("awsRegion")) {
      if (!m.containsKey("wal")) {
        throw new IllegalArgumentException("--dynamoEndpoint and --awsRegion are for commits; they need --wal");
      }
      o = o.withTieResolution(new DynamoConnection(m.get("dynamoEndpoint"), m.get("awsRegion")));
    }
    return o;
  }

  private static long number(Map<String, String> m, String name, long min, long max) {
    String text = m.get(name);
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a whole number, not \"" + text + "\"");
    }
    if (v < min || v > max) {
      throw new IllegalArgumentException("--" + name + " must be between " + min + " and " + max + ", not " + v);
    }
    return v;
  }
}
