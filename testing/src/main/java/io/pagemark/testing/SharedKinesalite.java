package io.pagemark.testing;

import java.io.IOException;

/**
 * One kinesalite process for all integration tests of a JVM, installed (npm) and started on first use, stopped at
 * exit. If it cannot start, every test that needs it fails (never skips).
 */
public final class SharedKinesalite {
  private static Kinesalite instance;

  private SharedKinesalite() {}

  public static synchronized Kinesalite get() throws IOException {
    if (instance == null) {
      instance = Kinesalite.start();
      Kinesalite started = instance;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
    }
    return instance;
  }
}
