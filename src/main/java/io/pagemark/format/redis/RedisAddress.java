package io.pagemark.format.redis;

import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Where a Redis index lives: one server, {@code redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]} (port 6379 and database 0
 * by default), or a Redis Cluster, {@code redis-cluster://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]} (any nodes of
 * it; the client learns the others). Serializable, so that a pipeline carries it to its workers;
 * {@link #nodes(String)} opens the client for either. {@link #toString()} never shows the password.
 *
 * @param host the server, or the first seed node of a cluster
 * @param port its port
 * @param database the database number (always 0 in a cluster)
 * @param user the ACL user, or null for the default user
 * @param password the password, or null for none
 * @param seeds a cluster's seed nodes as {@code HOST:PORT}; empty for one server
 */
public record RedisAddress(String host, int port, int database, String user, String password, List<String> seeds)
    implements Serializable {
  private static final long serialVersionUID = 2L;
  public static final int DEFAULT_PORT = 6379;
  static final int CONNECT_TIMEOUT_MILLIS = 5_000;
  static final int SOCKET_TIMEOUT_MILLIS = 30_000;
  static final String CLUSTER_SCHEME = "redis-cluster://";

  public RedisAddress {
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("a Redis address needs a host");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("Redis port " + port + " is outside 1..65535");
    }
    if (database < 0) {
      throw new IllegalArgumentException("Redis database " + database + " is negative");
    }
    seeds = List.copyOf(seeds);
    if (!seeds.isEmpty() && database != 0) {
      throw new IllegalArgumentException("a Redis Cluster has only database 0");
    }
  }

  /** One server. */
  public RedisAddress(String host, int port, int database, String user, String password) {
    this(host, port, database, user, password, List.of());
  }

  /** Whether this names a Redis Cluster (keys are spread over its masters by hash slot). */
  public boolean isCluster() {
    return !seeds.isEmpty();
  }

  /** The client for this address: one server's connection pool, or a cluster's; the caller closes it. */
  public RedisNodes nodes(String clientName) {
    return isCluster() ? RedisNodes.cluster(this, clientName) : RedisNodes.single(this, clientName);
  }

  /** A cluster's seed nodes (for one server, the server). */
  public Set<HostAndPort> seedNodes() {
    Set<HostAndPort> s = new LinkedHashSet<>();
    if (seeds.isEmpty()) {
      s.add(hostAndPort());
    }
    for (String n : seeds) {
      s.add(HostAndPort.from(n));
    }
    return s;
  }

  /**
   * Parses {@code redis-cluster://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]}; throws {@link IllegalArgumentException}
   * saying what is wrong.
   */
  private static RedisAddress parseCluster(String uri) {
    String example = "; expected redis-cluster://HOST:PORT[,HOST:PORT...], e.g. redis-cluster://10.0.0.1:7000,10.0.0.2:7000";
    String rest = uri.substring(CLUSTER_SCHEME.length());
    if (rest.contains("?") || rest.contains("#")) {
      throw new IllegalArgumentException("\"" + uri + "\": an address takes no query or fragment" + example);
    }
    if (rest.contains("/")) {
      throw new IllegalArgumentException("\"" + uri + "\": a Redis Cluster has no database number (only 0)" + example);
    }
    String user = null;
    String password = null;
    int at = rest.lastIndexOf('@');
    if (at >= 0) {
      String info = rest.substring(0, at);
      rest = rest.substring(at + 1);
      int colon = info.indexOf(':');
      user = colon <= 0 ? null : info.substring(0, colon);
      password = colon < 0 ? info : info.substring(colon + 1);
    }
    List<String> seeds = new ArrayList<>();
    for (String node : rest.split(",", -1)) {
      int colon = node.lastIndexOf(':');
      if (node.isEmpty() || colon <= 0 || colon == node.length() - 1) {
        throw new IllegalArgumentException("\"" + uri + "\": \"" + node + "\" is not HOST:PORT" + example);
      }
      int port;
      try {
        port = Integer.parseInt(node.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("\"" + uri + "\": \"" + node + "\" has no port number" + example);
      }
      String host = node.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("\"" + uri + "\": port " + port + " is outside 1..65535" + example);
      }
      seeds.add(host + ":" + port);
    }
    HostAndPort first = HostAndPort.from(seeds.get(0));
    return new RedisAddress(first.getHost(), first.getPort(), 0, user, password, seeds);
  }

  /**
   * Parses {@code redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]} or
   * {@code redis-cluster://[[USER]:PASSWORD@]HOST:PORT[,HOST:PORT...]}; throws {@link IllegalArgumentException} saying what is
   * wrong. A query ({@code ?...}) is not part of an address: an index spec such as
   * {@code redis://HOST:PORT/DB?prefix=P} names an index at an address (see
   * {@link io.pagemark.lookup.Indexes#open(String)}).
   */
  public static RedisAddress parse(String uri) {
    if (uri.startsWith(CLUSTER_SCHEME)) {
      return parseCluster(uri);
    }
    String example = "; expected redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0, or"
        + " redis-cluster://HOST:PORT[,HOST:PORT...]";
    if (uri.startsWith("rediss://")) {
      throw new IllegalArgumentException("\"" + uri + "\": TLS (rediss://) is not supported" + example);
    }
    if (!uri.startsWith("redis://")) {
      throw new IllegalArgumentException("\"" + uri + "\" is not a Redis URI" + example);
    }
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("\"" + uri + "\" is not a valid URI (" + e.getReason() + ")" + example);
    }
    if (u.getRawQuery() != null || u.getRawFragment() != null) {
      throw new IllegalArgumentException("\"" + uri + "\": an address takes no query or fragment" + example);
    }
    String host = u.getHost();
    if (host == null || host.isEmpty()) {
      throw new IllegalArgumentException("\"" + uri + "\" names no host" + example);
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = u.getPort() < 0 ? DEFAULT_PORT : u.getPort();
    String path = u.getPath() == null ? "" : u.getPath();
    int db = 0;
    if (!path.isEmpty() && !path.equals("/")) {
      try {
        db = Integer.parseInt(path.substring(1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "\"" + uri + "\": the path must be a database number, not \"" + path.substring(1) + "\"" + example);
      }
    }
    String user = null;
    String password = null;
    if (u.getUserInfo() != null) {
      String info = u.getUserInfo();
      int colon = info.indexOf(':');
      user = colon < 0 ? null : info.substring(0, colon);
      password = colon < 0 ? info : info.substring(colon + 1);
      if (user != null && user.isEmpty()) {
        user = null;
      }
    }
    try {
      return new RedisAddress(host, port, db, user, password);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("\"" + uri + "\": " + e.getMessage() + example);
    }
  }

  /** Client settings: timeouts, database, credentials and a client name that shows in {@code CLIENT LIST}. */
  public JedisClientConfig clientConfig(String clientName) {
    DefaultJedisClientConfig.Builder b =
        DefaultJedisClientConfig.builder()
            .connectionTimeoutMillis(CONNECT_TIMEOUT_MILLIS)
            .socketTimeoutMillis(SOCKET_TIMEOUT_MILLIS)
            .database(database)
            .clientName(clientName);
    if (password != null) {
      b.user(user).password(password);
    }
    return b.build();
  }

  public HostAndPort hostAndPort() {
    return new HostAndPort(host, port);
  }

  /**
   * A new connection to one server (a cluster's first seed node) that has answered PING; the caller closes it. Throws an {@link IOException} that names this
   * address when Redis cannot be reached or refuses the connection.
   */
  public Jedis connect(String clientName) throws IOException {
    Jedis j = null;
    try {
      j = new Jedis(hostAndPort(), clientConfig(clientName));
      j.ping();
      return j;
    } catch (JedisException e) {
      if (j != null) {
        j.close();
      }
      throw unreachable(e);
    }
  }

  /** A thread-safe pool of connections (nothing is connected until first use). */
  public JedisPooled pool(String clientName) {
    return new JedisPooled(hostAndPort(), clientConfig(clientName));
  }

  /** The exception for a failed connection: names the address and says what to check. */
  public IOException unreachable(Exception cause) {
    return new IOException(
        "cannot reach Redis at " + this + " (" + rootMessage(cause) + "); is " + (isCluster() ? "the cluster" : "redis-server") + " running there?", cause);
  }

  /** The innermost message of an exception chain (Jedis wraps socket errors). */
  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  /** {@code redis://HOST:PORT/DB} or {@code redis-cluster://HOST:PORT,...}, without credentials. */
  @Override
  public String toString() {
    if (isCluster()) {
      return CLUSTER_SCHEME + String.join(",", seeds);
    }
    String h = host.contains(":") ? "[" + host + "]" : host;
    return "redis://" + h + ":" + port + "/" + database;
  }
}
