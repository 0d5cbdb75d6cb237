package io.pagemark.testing;

import java.io.IOException;

/**
 * One PostgreSQL server for the PostgreSQL integration tests of a JVM, started on first use and stopped at exit.
 * Each test class works in a database of its own ({@link PostgresServer#createDatabase}).
 */
public final class SharedPostgres {
  private static PostgresServer instance;

  private SharedPostgres() {}

  public static synchronized PostgresServer get() throws IOException {
    if (instance == null) {
      instance = PostgresServer.start();
      PostgresServer started = instance;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          started.close();
        } catch (IOException e) {
          // the JVM is exiting; the server's own shutdown hook stopped it
        }
      }));
    }
    return instance;
  }
}
