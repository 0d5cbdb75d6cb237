package io.pagemark.testing;

import java.io.IOException;

/**
 * The JVM's shared redis-server, as {@link RedisExtension} hands it out (checked, and restarted when it died).
 *
 * @deprecated declare {@code @ExtendWith(RedisExtension.class)} and a parameter of type
 *     {@link RedisServer} instead; this delegate only keeps tests written before the extensions compiling until they
 *     move.
 */
@Deprecated(forRemoval = true)
public final class SharedRedis {
  private SharedRedis() {}

  public static RedisServer get() throws IOException {
    return RedisExtension.get();
  }
}
