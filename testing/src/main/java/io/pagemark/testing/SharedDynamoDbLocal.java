package io.pagemark.testing;

import java.io.IOException;

/**
 * One DynamoDB Local process for all integration tests of a JVM, started on first use and stopped at exit. If it
 * cannot start, every test that needs it fails (never skips).
 */
public final class SharedDynamoDbLocal {
  private static DynamoDbLocal instance;

  private SharedDynamoDbLocal() {}

  public static synchronized DynamoDbLocal get() throws IOException {
    if (instance == null) {
      instance = DynamoDbLocal.start();
      DynamoDbLocal started = instance;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
    }
    return instance;
  }
}
