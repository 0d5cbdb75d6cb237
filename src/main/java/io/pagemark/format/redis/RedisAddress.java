package io.pagemark.format.redis;

import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.net.URISyntaxException;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Where a Redis index lives: {@code redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]} (port 6379 and database 0 by
 * default). Serializable, so that a pipeline carries it to its workers. {@link #toString()} never shows the password.
 * Only a standalone Redis (or a primary) is supported, not Redis Cluster.
 */
public record RedisAddress(String host, int port, int database, String user, String password)
    implements Serializable {
  private static final long serialVersionUID = 1L;
  public static final int DEFAULT_PORT = 6379;
  static final int CONNECT_TIMEOUT_MILLIS = 5_000;
  static final int SOCKET_TIMEOUT_MILLIS = 30_000;

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
  }

  /**
   * Parses {@code redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]}; throws {@link IllegalArgumentException} saying what is
   * wrong. A query ({@code ?...}) is not part of an address: an index spec such as
   * {@code redis://HOST:PORT/DB?prefix=P} names an index at an address (see
   * {@link io.pagemark.lookup.Indexes#open(String)}).
   */
  public static RedisAddress parse(String uri) {
    String example = "; expected redis://HOST:PORT[/DB], e.g. redis://127.0.0.1:6379/0";
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
   * A new connection that has answered PING; the caller closes it. Throws an {@link IOException} that names this
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
        "cannot reach Redis at " + this + " (" + rootMessage(cause) + "); is redis-server running there?", cause);
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

  /** {@code redis://HOST:PORT/DB}, without credentials. */
  @Override
  public String toString() {
    String h = host.contains(":") ? "[" + host + "]" : host;
    return "redis://" + h + ":" + port + "/" + database;
  }
}
