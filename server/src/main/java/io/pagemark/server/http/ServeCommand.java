package io.pagemark.server.http;

import io.pagemark.dynamo.DynamoConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code pagemark serve --index=INDEX --table=T [--gsi=G] [--port=8080] [--bind=127.0.0.1] [--dynamoEndpoint=URL]
 * [--awsRegion=R] [--freshPages=K] [--pageSize=20] [--maxPageSize=1000] [--refreshSeconds=2] [--threads=32]}: serves
 * the index's pages over HTTP until stopped (Ctrl-C or SIGTERM). Exit codes: 0 after a clean stop, 1 when the index
 * cannot be opened or the address cannot be bound, 2 for bad options.
 */
public final class ServeCommand {
  static final Set<String> OPTIONS = Set.of("index", "table", "gsi", "port", "bind", "dynamoEndpoint", "awsRegion",
      "freshPages", "pageSize", "maxPageSize", "refreshSeconds", "threads");
  static final String USAGE =
      "usage: pagemark serve --index=DIR|redis://... --table=T [--gsi=G] [--port=8080] [--bind=127.0.0.1]\n"
          + "                      [--dynamoEndpoint=URL] [--awsRegion=R] [--freshPages=K] [--pageSize=20]"
          + " [--maxPageSize=1000]\n"
          + "                      [--refreshSeconds=2] [--threads=32]";

  private ServeCommand() {}

  /** Runs the command; returns its exit code once the server has stopped (or could not start). */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.contains("--help")) {
      out.println(USAGE);
      return 0;
    }
    ServeConfig config;
    try {
      config = parse(args);
    } catch (IllegalArgumentException e) {
      err.println("pagemark serve: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    // A slow client must not hold a request thread forever (the JDK server reads requests on those threads).
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "30");
    }
    PageServer server;
    try {
      server = PageServer.start(config);
    } catch (IOException | RuntimeException e) {
      err.println("pagemark serve: cannot start: " + e.getMessage());
      return 1;
    }
    Thread hook = new Thread(server::close, "pagemark-serve-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    out.println("pagemark serve: serving " + config.index() + " (table " + config.table()
        + (config.gsi() == null ? "" : ", index " + config.gsi()) + ", " + config.dynamo() + ") at " + server.url()
        + "  (API: " + server.url() + "openapi.json; Ctrl-C stops)");
    out.flush();
    try {
      server.awaitStop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
    }
    return 0;
  }

  /** The options as a configuration; {@link IllegalArgumentException} names the first bad one. */
  static ServeConfig parse(List<String> args) {
    Map<String, String> o = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (!a.startsWith("--") || eq < 0) {
        throw new IllegalArgumentException("options are --name=value, not \"" + a + "\"");
      }
      String name = a.substring(2, eq);
      if (!OPTIONS.contains(name)) {
        throw new IllegalArgumentException("unknown option --" + name);
      }
      if (o.put(name, a.substring(eq + 1)) != null) {
        throw new IllegalArgumentException("--" + name + " is given twice");
      }
    }
    String index = required(o, "index");
    String table = required(o, "table");
    DynamoConnection dynamo = new DynamoConnection(o.get("dynamoEndpoint"), o.get("awsRegion"));
    int maxPageSize = number(o, "maxPageSize", ServeConfig.DEFAULT_MAX_PAGE_SIZE);
    return new ServeConfig(index, table, o.get("gsi"), dynamo, o.getOrDefault("bind", ServeConfig.DEFAULT_BIND),
        number(o, "port", ServeConfig.DEFAULT_PORT), number(o, "freshPages", 0),
        number(o, "pageSize", Math.min(ServeConfig.DEFAULT_PAGE_SIZE, maxPageSize)), maxPageSize,
        Duration.ofMillis(Math.round(decimal(o, "refreshSeconds", ServeConfig.DEFAULT_REFRESH.toSeconds()) * 1000)),
        number(o, "threads", ServeConfig.DEFAULT_THREADS));
  }

  private static String required(Map<String, String> o, String name) {
    String v = o.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  private static int number(Map<String, String> o, String name, int dflt) {
    String v = o.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a whole number, not \"" + v + "\"");
    }
  }

  private static double decimal(Map<String, String> o, String name, double dflt) {
    String v = o.get(name);
    if (v == null) {
      return dflt;
    }
    try {
      double d = Double.parseDouble(v);
      if (!(d > 0) || d > 86400) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a number of seconds above 0, not \"" + v + "\"");
    }
  }
}
