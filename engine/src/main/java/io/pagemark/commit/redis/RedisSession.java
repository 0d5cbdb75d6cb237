package io.pagemark.commit.redis;

import io.pagemark.format.redis.RedisAddress;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One connection to Redis that survives connection drops and server restarts: {@link #call} runs an idempotent
 * operation, and when the connection fails (or Redis answers LOADING/BUSY while it starts up) it reconnects and runs
 * it again, after the waits its {@link RedisBackoff} gives, until they are used up. Each connection learns the
 * server's {@code run_id}, which changes when Redis restarts, so that callers can tell a dropped connection (their
 * writes are there) from a restarted server (they may be gone). Not thread-safe: one per DoFn instance.
 */
public final class RedisSession implements AutoCloseable {
  private final RedisAddress address;
  private final String clientName;
  private final RedisBackoff backoff;
  private final Runnable onRetry;
  private Jedis jedis;
  private String runId;

  /**
   * A session that connects on first use, waits between retries as {@code backoff} says and calls {@code onRetry}
   * before each retry (a metric, say).
   */
  public RedisSession(RedisAddress address, String clientName, RedisBackoff backoff, Runnable onRetry) {
    this.address = address;
    this.clientName = clientName;
    this.backoff = backoff;
    this.onRetry = onRetry;
  }

  /** Runs an idempotent operation, retrying it on a new connection after connection errors. */
  public <T> T call(String what, Function<Jedis, T> op) {
    RedisBackoff.Waits waits = null;
    long waited = 0;
    while (true) {
      try {
        if (jedis == null) {
          connect();
        }
        return op.apply(jedis);
      } catch (JedisException e) {
        if (!retryable(e)) {
          throw RedisFailure.of(what + " failed at " + address + ": " + RedisAddress.rootMessage(e), e);
        }
        disconnect();
        waits = waits == null ? backoff.start() : waits;
        long wait = waits.nextMillis();
        if (wait == RedisBackoff.STOP) {
          throw RedisFailure.of("cannot reach Redis at " + address + " (" + RedisAddress.rootMessage(e) + ") after "
              + (waited / 1000.0) + " s of retries while trying to " + what + "; is redis-server running there?", e);
        }
        onRetry.run();
        try {
          Thread.sleep(wait);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw RedisFailure.of("interrupted while waiting to retry: " + what, e);
        }
        waited += wait;
      }
    }
  }

  /** The {@code run_id} of the server this session is (or was last) connected to; connects if it never was. */
  public String runId() {
    if (runId == null) {
      call("connect", j -> j);
    }
    return runId;
  }

  /**
   * Throws the first error reply of a pipeline (pipelines collect error replies instead of throwing), so that
   * {@link #call} can retry it or report it.
   */
  public static List<Object> checkReplies(List<Object> replies) {
    for (Object r : replies) {
      if (r instanceof JedisException) {
        throw (JedisException) r;
      }
    }
    return replies;
  }

  private void connect() {
    Jedis j = new Jedis(address.hostAndPort(), address.clientConfig(clientName));
    try {
      runId = parseRunId(j.info("server"));
      jedis = j;
    } catch (RuntimeException e) {
      j.close();
      throw e;
    }
  }

  static String parseRunId(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("run_id:")) {
        return line.substring("run_id:".length()).trim();
      }
    }
    throw new JedisDataException("INFO server has no run_id");
  }

  /** Connection failures, and the replies of a server that is starting up or busy: worth a retry. */
  private static boolean retryable(JedisException e) {
    if (e instanceof JedisConnectionException) {
      return true;
    }
    String m = e.getMessage() == null ? "" : e.getMessage();
    return e instanceof JedisDataException
        && (m.startsWith("LOADING") || m.startsWith("BUSY") || m.startsWith("TRYAGAIN") || m.startsWith("MASTERDOWN"));
  }

  private void disconnect() {
    if (jedis != null) {
      try {
        jedis.close();
      } catch (RuntimeException ignored) {
        // the connection is broken already
      }
      jedis = null;
    }
  }

  @Override
  public void close() {
    disconnect();
  }
}
