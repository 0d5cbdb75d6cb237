package io.pagemark.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The launcher starts a real PostgreSQL on loopback, hands out databases, and stops it for good. */
class PostgresServerTest {
  @Test
  void startsOnLoopbackServesADatabaseAndStops() throws Exception {
    String url;
    try (PostgresServer pg = PostgresServer.start()) {
      url = pg.createDatabase("launcher_test");
      try (Connection c = java.sql.DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE t (b bytea PRIMARY KEY)");
        s.execute("INSERT INTO t VALUES ('\\x00ff'::bytea)");
        try (ResultSet rs = s.executeQuery("SELECT current_setting('listen_addresses'), count(*) FROM t")) {
          rs.next();
          assertThat(rs.getString(1), is("127.0.0.1"));
          assertThat(rs.getLong(2), is(1L));
        }
      }
    }
    assertThrows(SQLException.class, () -> java.sql.DriverManager.getConnection(url).close());
  }
}
