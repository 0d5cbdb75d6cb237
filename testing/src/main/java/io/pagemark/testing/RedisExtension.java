package io.pagemark.testing;

import java.io.IOException;

/**
 * JUnit 5: one redis-server for the test JVM ({@code @ExtendWith(RedisExtension.class)}, then a parameter
 * {@code RedisServer redis}), installed by {@code bin/ensure-redis} before its first start when missing, checked
 * before each test and restarted (empty) when it died, on the same port when it can. Tests share it: each works under
 * its own key prefix or database, or flushes what it uses, and none kills it (a test that does starts a
 * {@link RedisServer} of its own). Logs: {@code target/services/redis-server-N.log}.
 */
public final class RedisExtension extends ServiceExtension<RedisServer> {
  private static final SharedService<RedisServer> SHARED = SharedService.of("redis-server", RedisServer::start);

  public RedisExtension() {
    super(RedisServer.class, SHARED);
  }

  /** The JVM's redis-server, started or restarted as needed: for helpers that are not handed it. */
  public static RedisServer get() throws IOException {
    return SHARED.get();
  }
}
