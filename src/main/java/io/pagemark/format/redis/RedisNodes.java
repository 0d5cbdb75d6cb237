package io.pagemark.format.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * The one client the Redis sink, the change stream and the reader share, for one server or a Redis Cluster alike:
 * {@link #onKey} runs an operation on a connection to the master that owns a key's hash slot (in a cluster, every key
 * an operation touches must share that slot, which {@link RedisLayout}'s hash tags guarantee), and
 * {@link #onEachMaster} runs one on every master (SCAN). While a cluster reshards, a slot's keys move: the replies
 * {@code MOVED}, {@code ASK}, {@code TRYAGAIN} and {@code CLUSTERDOWN} make {@link #onKey} refresh its slot map and run
 * the operation again, so operations must be idempotent or conditional (scripts, WATCH/MULTI). Thread-safe (pooled).
 */
public abstract class RedisNodes implements AutoCloseable {
  /** How long {@link #onKey} keeps retrying while a slot moves (a slot of a few MB migrates in well under this). */
  static final long REDIRECT_RETRY_MILLIS = 30_000;

  private final RedisAddress address;

  RedisNodes(RedisAddress address) {
    this.address = address;
  }

  static RedisNodes single(RedisAddress address, String clientName) {
    return new Single(address, clientName);
  }

  static RedisNodes cluster(RedisAddress address, String clientName) {
    return new Cluster(address, clientName);
  }

  public RedisAddress address() {
    return address;
  }

  /**
   * Runs {@code op} on a connection to the master of {@code key}'s slot and returns its result. Connection errors
   * propagate ({@link JedisConnectionException}: the caller decides whether to retry); slot redirections are retried
   * here for up to 30 s.
   */
  public <T> T onKey(byte[] key, Function<Jedis, T> op) {
    long deadline = System.currentTimeMillis() + REDIRECT_RETRY_MILLIS;
    long wait = 2;
    while (true) {
      try (Jedis j = connection(key)) {
        return op.apply(j);
      } catch (JedisException e) {
        if (!isRedirect(e) || System.currentTimeMillis() > deadline) {
          throw e;
        }
        renewSlots();
        sleep(wait);
        wait = Math.min(200, wait * 2);
      }
    }
  }

  /** Runs {@code op} on every master (one server: on it), in no particular order; returns the results. */
  public abstract <T> List<T> onEachMaster(Function<Jedis, T> op);

  /** A connection to the master of {@code key}'s slot; closing it returns it to the pool. */
  abstract Jedis connection(byte[] key);

  abstract void renewSlots();

  /**
   * Whether a failure means that the key's slot is moving or the cluster is re-forming, so that the same operation
   * will succeed on the right node shortly.
   */
  public static boolean isRedirect(JedisException e) {
    if (e instanceof JedisRedirectionException || e instanceof JedisClusterOperationException) {
      return true;
    }
    String m = e.getMessage() == null ? "" : e.getMessage();
    return e instanceof JedisDataException
        && (m.startsWith("MOVED") || m.startsWith("ASK") || m.startsWith("TRYAGAIN") || m.startsWith("CLUSTERDOWN")
            // a transaction whose queued command was redirected is discarded as a whole
            || m.startsWith("EXECABORT"));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JedisConnectionException("interrupted while waiting for a Redis Cluster slot to move", e);
    }
  }

  @Override
  public abstract void close();

  private static final class Single extends RedisNodes {
    private final JedisPool pool;

    Single(RedisAddress address, String clientName) {
      super(address);
      this.pool = new JedisPool(address.hostAndPort(), address.clientConfig(clientName));
    }

    @Override
    Jedis connection(byte[] key) {
      return pool.getResource();
    }

    @Override
    void renewSlots() {}

    @Override
    public <T> List<T> onEachMaster(Function<Jedis, T> op) {
      try (Jedis j = pool.getResource()) {
        return List.of(op.apply(j));
      }
    }

    @Override
    public void close() {
      pool.close();
    }
  }

  private static final class Cluster extends RedisNodes {
    private final ClusterConnectionProvider provider;

    Cluster(RedisAddress address, String clientName) {
      super(address);
      try {
        this.provider = new ClusterConnectionProvider(address.seedNodes(), address.clientConfig(clientName));
      } catch (JedisClusterOperationException e) {
        // Jedis says "Could not initialize cluster slots cache." when no seed answers: say which seeds.
        throw new JedisConnectionException("no node of " + address + " answered (" + e.getMessage() + ")", e);
      }
    }

    @Override
    Jedis connection(byte[] key) {
      Connection c = provider.getConnectionFromSlot(JedisClusterCRC16.getSlot(key));
      return new Jedis(c);
    }

    @Override
    void renewSlots() {
      try {
        provider.renewSlotCache();
      } catch (JedisException e) {
        // every node failed to answer: the retry that follows reports it
      }
    }

    @Override
    public <T> List<T> onEachMaster(Function<Jedis, T> op) {
      renewSlots();
      List<T> out = new ArrayList<>();
      for (Map.Entry<String, ConnectionPool> node : provider.getNodes().entrySet()) {
        try (Jedis j = new Jedis(node.getValue().getResource())) {
          if (!j.info("replication").contains("role:master")) {
            continue;
          }
          out.add(op.apply(j));
        }
      }
      return out;
    }

    @Override
    public void close() {
      provider.close();
    }
  }
}
