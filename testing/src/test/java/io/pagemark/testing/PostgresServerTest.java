package io.pagemark.testing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher starts a real PostgreSQL on loopback, hands out databases, knows when its postmaster died, and stops it
 * for good, keeping the server's log.
 */
class PostgresServerTest {
  @Test
  void startsOnLoopbackServesADatabaseAndStops(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("postgres.log");
    String url;
    try (PostgresServer pg = PostgresServer.start(0, log)) {
      assertThat(pg.isAlive(), is(true));
      pg.ping();
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
    assertThat(Files.readString(log), containsString("--- the server's log ---"));
  }

  @Test
  void aKilledServerIsNotAliveAndDoesNotAnswer(@TempDir Path dir) throws Exception {
    try (PostgresServer pg = PostgresServer.start(0, dir.resolve("postgres.log"))) {
      pg.kill();
      assertThat(pg.isAlive(), is(false));
      assertThat(pg.exitStatus(), containsString("is gone"));
      assertThrows(IOException.class, pg::ping);
    }
  }
}
