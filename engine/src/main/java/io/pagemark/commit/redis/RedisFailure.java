package io.pagemark.commit.redis;

/**
 * A failure of the Redis sink that the user has to act on. Its message says it all (address, group, what to do); the
 * client's exception is attached as suppressed rather than as the cause, so that tools that print only the innermost
 * cause (the CLI does) still print this message.
 */
public final class RedisFailure {
  private RedisFailure() {}

  public static IllegalStateException of(String message, Throwable detail) {
    IllegalStateException e = new IllegalStateException(message);
    if (detail != null) {
      e.addSuppressed(detail);
    }
    return e;
  }
}
