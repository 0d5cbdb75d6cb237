package io.pagemark.commit.redis;

import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisNodes;
import java.util.List;
import java.util.function.Function;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A client of one Redis server or Redis Cluster ({@link RedisNodes}) that survives connection drops, server restarts
 * and resharding: {@link #call} runs an idempotent operation on the master of a key's hash slot, and when the
 * connection fails (or Redis answers LOADING/BUSY while it starts up, or the slot is moving) it reconnects and runs it
 * again, after the waits its {@link RedisBackoff} gives, until they are used up. {@link #runId} tells the
 * {@code run_id} of the server holding a key, which changes when Redis restarts, so that callers can tell a dropped
 * connection (their writes are there) from a restarted server (they may be gone). Not thread-safe: one per DoFn
 * instance.
 */
public final class RedisSession implements AutoCloseable {
  private final RedisAddress address;
  private final String clientName;
  private final RedisBackoff backoff;
  private final Runnable onRetry;
  private RedisNodes nodes;

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

  /**
   * Runs an idempotent operation on the master that holds {@code key} (every key it touches must share that key's
   * hash slot), retrying it after connection errors.
   */
  public <T> T call(String what, byte[] key, Function<Jedis, T> op) {
    return retrying(what, () -> nodes.onKey(key, op));
  }

  /** Runs an idempotent operation on every master (one server: on it), retrying after connection errors. */
  public <T> List<T> onEachMaster(String what, Function<Jedis, T> op) {
    return retrying(what, () -> nodes.onEachMaster(op));
  }

  private <T> T retrying(String what, java.util.function.Supplier<T> op) {
    RedisBackoff.Waits waits = null;
    long waited = 0;
    while (true) {
      try {
        if (nodes == null) {
          nodes = address.nodes(clientName);
        }
        return op.get();
      } catch (JedisException e) {
        if (!retryable(e)) {
          throw RedisFailure.of(what + " failed at " + address + ": " + RedisAddress.rootMessage(e), e);
        }
        disconnect();
        waits = waits == null ? backoff.start() : waits;
        long wait = waits.nextMillis();
        if (wait == RedisBackoff.STOP) {
          throw RedisFailure.of("cannot reach Redis at " + address + " (" + RedisAddress.rootMessage(e) + ") after "
              + (waited / 1000.0) + " s of retries while trying to " + what + "; is "
              + (address.isCluster() ? "the cluster" : "redis-server") + " running there?", e);
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

  /** The {@code run_id} of the server that holds {@code key} now. */
  public String runId(byte[] key) {
    return call("read the server's run id", key, j -> parseRunId(j.info("server")));
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

  static String parseRunId(String info) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("run_id:")) {
        return line.substring("run_id:".length()).trim();
      }
    }
    throw new JedisDataException("INFO server has no run_id");
  }

  /** Connection failures, slot moves, and the replies of a server that is starting up or busy: worth a retry. */
  private static boolean retryable(JedisException e) {
    if (e instanceof JedisConnectionException || RedisNodes.isRedirect(e)) {
      return true;
    }
    String m = e.getMessage() == null ? "" : e.getMessage();
    return e instanceof JedisDataException
        && (m.startsWith("LOADING") || m.startsWith("BUSY") || m.startsWith("TRYAGAIN") || m.startsWith("MASTERDOWN"));
  }

  private void disconnect() {
    if (nodes != null) {
      try {
        nodes.close();
      } catch (RuntimeException ignored) {
        // the connections are broken already
      }
      nodes = null;
    }
  }

  @Override
  public void close() {
    disconnect();
  }
}
