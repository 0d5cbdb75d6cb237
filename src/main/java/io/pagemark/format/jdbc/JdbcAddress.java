package io.pagemark.format.jdbc;

import java.io.Serializable;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * Where a PostgreSQL index lives: {@code jdbc:postgresql://HOST[:PORT]/DB[?user=U&password=P&currentSchema=S]}, the
 * URL the PostgreSQL driver takes, plus the schema that holds the index ({@value JdbcLayout#DEFAULT_SCHEMA} unless
 * {@code currentSchema} or {@link #withSchema} names another). Credentials come from the URL or from
 * {@link #withCredentials}. Serializable, so that a pipeline carries it to its workers; {@link #toString()} never
 * shows the password.
 *
 * @param url the JDBC URL as given (it may hold credentials)
 * @param user the user name, or null for the URL's (or the driver's default)
 * @param password the password, or null for the URL's
 * @param schema the schema of the index's tables
 */
public record JdbcAddress(String url, String user, String password, String schema) implements Serializable {
  private static final long serialVersionUID = 1L;
  /** What a PostgreSQL index spec starts with. */
  public static final String SCHEME = "jdbc:postgresql:";
  static final String DRIVER = "org.postgresql.Driver";
  /** Seconds to wait for a connection before a read or write gives up. */
  static final int CONNECT_TIMEOUT_SECONDS = 10;

  public JdbcAddress {
    Objects.requireNonNull(url, "url");
    if (!url.startsWith(SCHEME + "//")) {
      throw new IllegalArgumentException("\"" + redact(url) + "\" is not a PostgreSQL JDBC URL; give"
          + " jdbc:postgresql://HOST[:PORT]/DATABASE[?user=U&password=P&currentSchema=S]");
    }
    new JdbcLayout(schema); // checks the schema name
  }

  /**
   * Parses a spec; the schema is the URL's {@code currentSchema}, else {@value JdbcLayout#DEFAULT_SCHEMA}.
   *
   * @throws IllegalArgumentException for anything but a {@code jdbc:postgresql://} URL, or a bad schema name
   */
  public static JdbcAddress parse(String spec) {
    String schema = parameter(Objects.requireNonNull(spec, "spec"), "currentSchema");
    return new JdbcAddress(spec, null, null, schema == null ? JdbcLayout.DEFAULT_SCHEMA : schema);
  }

  /** This address with a user and a password (null: the URL's). */
  public JdbcAddress withCredentials(String user, String password) {
    return new JdbcAddress(url, user, password, schema);
  }

  /** This address with the index in another schema. */
  public JdbcAddress withSchema(String schema) {
    return new JdbcAddress(url, user, password, schema);
  }

  /** The names of the index's tables. */
  public JdbcLayout layout() {
    return new JdbcLayout(schema);
  }

  /** The driver properties: the credentials given besides the URL, and a connect timeout. */
  public Properties properties() {
    Properties p = new Properties();
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    p.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
    p.setProperty("ApplicationName", "pagemark");
    return p;
  }

  /**
   * Opens a connection (auto-commit on). Throws an {@link SQLException} whose message names the address and what to
   * do when PostgreSQL cannot be reached, and an {@link IllegalStateException} when the driver is missing.
   */
  public Connection connect() throws SQLException {
    checkDriver();
    try {
      return DriverManager.getConnection(url, properties());
    } catch (SQLException e) {
      throw unreachable(e);
    }
  }

  /** An exception for a failed connection attempt that says where and what to check. */
  public SQLException unreachable(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String hint = state.startsWith("08") ? "is PostgreSQL running there, and does it accept TCP connections?"
        : state.startsWith("28") ? "check the user and password (--jdbcUser/--jdbcPassword or the URL's)"
        : state.equals("3D000") ? "create the database first (createdb), or name one that exists"
        : "check the URL";
    return new SQLException("cannot connect to PostgreSQL at " + this + ": " + e.getMessage() + " (" + hint + ")",
        e.getSQLState(), e);
  }

  /** Throws when the PostgreSQL driver is not on the classpath, saying what to add. */
  public static void checkDriver() {
    try {
      Class.forName(DRIVER, false, JdbcAddress.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException("PostgreSQL indexes need the PostgreSQL JDBC driver on the classpath"
          + " (org.postgresql:postgresql 42.7.4, an optional dependency of pagemark-lookup)", e);
    }
  }

  /** The URL without credentials, and the schema: {@code jdbc:postgresql://127.0.0.1:5432/app schema "pagemark"}. */
  @Override
  public String toString() {
    return redact(url) + " schema \"" + schema + "\"";
  }

  /** A URL with its password parameter (and any user:password@ part) hidden. */
  static String redact(String url) {
    String s = url.replaceAll("(?i)([?&]password=)[^&]*", "$1***");
    return s.replaceAll("//[^/@?]*:[^/@?]*@", "//***@");
  }

  /** A query parameter of a URL, decoded; null when absent. */
  static String parameter(String url, String name) {
    int q = url.indexOf('?');
    if (q < 0) {
      return null;
    }
    for (String pair : url.substring(q + 1).split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals(name)) {
        return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }
}
