package io.pagemark.testing;

import java.io.IOException;

/**
 * JUnit 5: one PostgreSQL for the test JVM ({@code @ExtendWith(PostgresExtension.class)}, then a parameter
 * {@code PostgresServer postgres}), installed by {@code bin/ensure-postgres} before its first start when missing,
 * checked before each test and restarted (a new, empty cluster) when it died, on the same port when it can. Each test
 * class works in a database of its own ({@link PostgresServer#createDatabase}); none kills the shared server (a test
 * that does starts a {@link PostgresServer} of its own). Logs: {@code target/services/postgres-N.log}.
 */
public final class PostgresExtension extends ServiceExtension<PostgresServer> {
  private static final SharedService<PostgresServer> SHARED = SharedService.of("postgres", PostgresServer::start);

  public PostgresExtension() {
    super(PostgresServer.class, SHARED);
  }

  /** The JVM's PostgreSQL, started or restarted as needed: for helpers that are not handed it. */
  public static PostgresServer get() throws IOException {
    return SHARED.get();
  }
}
