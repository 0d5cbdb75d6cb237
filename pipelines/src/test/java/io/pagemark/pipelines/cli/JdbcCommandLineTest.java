package io.pagemark.pipelines.cli;

import static io.pagemark.pipelines.cli.CommandLineTest.assertUsageError;
import static io.pagemark.pipelines.cli.CommandLineTest.pagemark;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;

import io.pagemark.pipelines.cli.CommandLineTest.Run;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL options of the command line: usage errors (exit 2) for options that do not go together, a malformed
 * URL named as such, and a PostgreSQL that cannot be reached reported as a failure (exit 1) that names the address
 * without its password. No PostgreSQL is needed: nothing listens on the port these tests use.
 */
class JdbcCommandLineTest {
  private static String unreachableUrl() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    return "jdbc:postgresql://127.0.0.1:" + port + "/app?user=u&password=secret";
  }

  @Test
  void commitOnAPostgresIndexNeedsItsWalAndKeepsNoBuilds() throws IOException {
    String url = unreachableUrl();
    assertUsageError(pagemark("commit", "--index=" + url),
        "pagemark commit: a PostgreSQL --index needs --wal=DIR, the directory the stream writes to");
    assertUsageError(pagemark("commit", "--index=" + url, "--wal=/tmp/w", "--keepBuilds=3"),
        "pagemark commit: --keepBuilds applies to a file index; a PostgreSQL index is committed in place"
            + " (pagemark gc drops its old builds)");
    assertUsageError(pagemark("commit", "--index=/data/index", "--wal=/tmp/w"),
        "pagemark commit: --wal goes with a PostgreSQL or s3:// --index; a file index keeps its WAL under"
            + " --index");
    assertUsageError(pagemark("commit", "--index=" + url, "--wal=/tmp/w", "--dedupeHours=0"),
        "pagemark commit: --dedupeHours must be between 1 and 8760, not 0");
  }

  @Test
  void aMalformedPostgresIndexIsAUsageError() {
    Run gc = pagemark("gc", "--index=jdbc:postgresql:app");
    assertUsageError(gc, "pagemark gc: --index: \"jdbc:postgresql:app\" is not a PostgreSQL JDBC URL; give"
        + " jdbc:postgresql://HOST[:PORT]/DATABASE[?user=U&password=P&currentSchema=S]");
  }

  @Test
  void backfillRefusesPostgresOptionsWithoutAUrl() {
    assertUsageError(pagemark("backfill", "--table=t", "--gsi=g", "--output=/tmp/x", "--jdbcUser=u"),
        "pagemark backfill: --jdbcUser needs --jdbcUrl");
  }

  @Test
  void anUnreachablePostgresIsAFailureThatHidesThePassword() throws IOException {
    String url = unreachableUrl();
    for (Run r : new Run[] {
      pagemark("lookup", "--index=" + url, "--group=g", "--page=1", "--pageSize=20"),
      pagemark("gc", "--index=" + url),
      pagemark("commit", "--index=" + url, "--wal=/nonexistent/wal"),
    }) {
      assertThat(r.err(), r.code(), is(ExitCode.FAILURE));
      assertThat(r.err(), allOf(containsString("127.0.0.1"), not(containsString("secret"))));
    }
  }
}
