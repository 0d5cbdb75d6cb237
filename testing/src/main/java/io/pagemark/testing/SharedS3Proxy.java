package io.pagemark.testing;

import java.io.IOException;

/**
 * One s3proxy for all S3 integration tests of a JVM, started on first use and stopped at exit. Each test works in a
 * bucket of its own. If it cannot start, every test that needs it fails (never skips).
 */
public final class SharedS3Proxy {
  private static S3Proxy instance;

  private SharedS3Proxy() {}

  public static synchronized S3Proxy get() throws IOException {
    if (instance == null) {
      instance = S3Proxy.start();
      S3Proxy started = instance;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
    }
    return instance;
  }
}
