package io.pagemark.testing;

import java.io.IOException;

/**
 * One redis-server for the Redis integration tests of a JVM that do not kill it, started on first use and stopped at
 * exit. Each test works under its own key prefix or flushes what it uses.
 */
public final class SharedRedis {
  private static RedisServer instance;

  private SharedRedis() {}

  public static synchronized RedisServer get() throws IOException {
    if (instance == null) {
      instance = RedisServer.start();
      RedisServer started = instance;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          started.close();
        } catch (java.io.IOException e) {
          // the JVM is exiting; the process dies with it at worst
        }
      }));
    }
    return instance;
  }
}
