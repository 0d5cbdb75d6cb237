package io.pagemark.transforms.sink.redis;

import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.RedisNodes;
import io.pagemark.key.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The load lease of one Redis key prefix: at most one backfill loads a prefix at a time. {@link #acquire} takes it
 * (SET NX with an expiry, in one script with a new fencing token from INCR) or throws {@link Held} naming the holder
 * and when its lease expires; while held it is renewed in the background every third of its time to live; closing
 * releases it if this holder still has it. The sink's publish and finish steps check that the lease still holds this
 * token ({@link WriteRedisSortedSets#withLoadLease}), so a backfill whose lease expired and was taken by another one
 * publishes nothing more. Thread-safe.
 */
public final class RedisLoadLease implements AutoCloseable {
  /** KEYS: lease, token counter. ARGV: holder, ttl ms. Returns {token, nil, 0} or {0, "TOKEN HOLDER", pttl}. */
  static final byte[] ACQUIRE =
      ("local held = redis.call('GET', KEYS[1])\n"
              + "if held then return {0, held, redis.call('PTTL', KEYS[1])} end\n"
              + "local token = redis.call('INCR', KEYS[2])\n"
              + "redis.call('SET', KEYS[1], token .. ' ' .. ARGV[1], 'PX', ARGV[2])\n"
              + "return {token, false, 0}")
          .getBytes(StandardCharsets.UTF_8);

  /**
   * Lua that sets {@code ok} to whether the lease (KEYS[L]) still belongs to token ARGV[T]: it holds that token, or it
   * is gone and no later token was handed out (KEYS[C], the counter, is not above it: a Redis restart without
   * persistence lost the lease, and nobody took it since). Sets {@code held} to the lease's value.
   */
  static String stillHeld(int lease, int counter, int token) {
    return "local held = redis.call('GET', KEYS[" + lease + "])\n"
        + "local ok = held and string.sub(held, 1, #ARGV[" + token + "] + 1) == ARGV[" + token + "] .. ' '\n"
        + "if not held then ok = tonumber(redis.call('GET', KEYS[" + counter + "]) or '0') <= tonumber(ARGV["
        + token + "]) end\n";
  }

  /**
   * KEYS: lease, token counter. ARGV: token, holder, ttl ms. Extends the lease if it is still this holder's (see
   * {@link #stillHeld}; a lost one is set again, and the counter brought up to the token); returns 1, or 0 when
   * another holder has taken over.
   */
  static final byte[] RENEW =
      (stillHeld(1, 2, 1)
              + "if not ok then return 0 end\n"
              + "if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[1]) then"
              + " redis.call('SET', KEYS[2], ARGV[1]) end\n"
              + "redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])\n"
              + "return 1")
          .getBytes(StandardCharsets.UTF_8);

  /** KEYS: lease, token counter. ARGV: token. Returns 1 while the lease is this token's, else its value (nil: none). */
  static final byte[] CHECK =
      (stillHeld(1, 2, 1) + "if ok then return 1 end\nreturn held or false").getBytes(StandardCharsets.UTF_8);

  /** KEYS: lease. ARGV: "TOKEN HOLDER". Deletes the lease if it is still this holder's. */
  static final byte[] RELEASE =
      ("if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end\n"
              + "return 0")
          .getBytes(StandardCharsets.UTF_8);

  private final RedisAddress address;
  private final RedisLayout layout;
  private final RedisNodes redis;
  private final long token;
  private final String holder;
  private final long ttlMillis;
  private final ScheduledExecutorService renewer;
  private volatile String lost;

  private RedisLoadLease(RedisAddress address, RedisLayout layout, RedisNodes redis, long token, String holder,
      long ttlMillis) {
    this.address = address;
    this.layout = layout;
    this.redis = redis;
    this.token = token;
    this.holder = holder;
    this.ttlMillis = ttlMillis;
    this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "pagemark-redis-lease");
      t.setDaemon(true);
      return t;
    });
    long every = Math.max(100, ttlMillis / 3);
    renewer.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Takes the load lease of {@code prefix} for {@code ttl} (renewed while held).
   *
   * @param holder who holds it, as others are told (say, "pagemark backfill, pid 42 on host h")
   * @throws Held if another holder has the lease
   * @throws IOException if Redis cannot be reached
   * @throws IllegalArgumentException if the ttl is under one second or the prefix is not a valid one
   */
  public static RedisLoadLease acquire(RedisAddress address, String prefix, String holder, Duration ttl)
      throws IOException {
    if (ttl.toMillis() < 1_000) {
      throw new IllegalArgumentException("the load lease must last at least 1 s, not " + ttl);
    }
    RedisLayout layout = new RedisLayout(prefix);
    RedisNodes redis;
    List<?> reply;
    try {
      redis = address.nodes("pagemark-lease");
    } catch (JedisException e) {
      throw address.unreachable(e);
    }
    try {
      byte[] lease = layout.loaderLeaseKey();
      reply = redis.onKey(lease, j -> (List<?>) j.eval(ACQUIRE, List.of(lease, layout.loaderTokenKey()),
          List.of(bytes(holder), bytes(Long.toString(ttl.toMillis())))));
    } catch (JedisException e) {
      redis.close();
      throw new IOException("taking the load lease of " + layout + " at " + address + " failed: "
          + RedisAddress.rootMessage(e), e);
    }
    long token = (Long) reply.get(0);
    if (token == 0) {
      redis.close();
      String held = new String((byte[]) reply.get(1), StandardCharsets.UTF_8);
      long pttl = (Long) reply.get(2);
      throw new Held(address, layout, held, pttl);
    }
    return new RedisLoadLease(address, layout, redis, token, holder, ttl.toMillis());
  }

  /** The fencing token: larger than that of every earlier holder of the prefix. */
  public long token() {
    return token;
  }

  /** Why the lease was lost while held (another holder took it over), or null while it is held. */
  public String lost() {
    return lost;
  }

  private void renew() {
    try {
      byte[] lease = layout.loaderLeaseKey();
      long ok = redis.onKey(lease, j -> (Long) j.eval(RENEW, List.of(lease, layout.loaderTokenKey()),
          List.of(bytes(Long.toString(token)), bytes(holder), bytes(Long.toString(ttlMillis)))));
      if (ok == 0 && lost == null) {
        byte[] now = redis.onKey(lease, j -> j.get(lease));
        lost = "the load lease of " + layout + " at " + address + " (token " + token + ") is now held by "
            + (now == null ? "nobody" : "\"" + new String(now, StandardCharsets.UTF_8) + "\"");
        renewer.shutdown();
      }
    } catch (JedisException e) {
      // Redis is unreachable for now: the next renewal tries again (the sink's own checks fence this holder out if
      // the lease expires meanwhile and another holder takes it)
    }
  }

  /** Stops renewing and deletes the lease if this holder still has it. */
  @Override
  public void close() {
    renewer.shutdownNow();
    try {
      byte[] lease = layout.loaderLeaseKey();
      redis.onKey(lease, j -> j.eval(RELEASE, List.of(lease), List.of(bytes(token + " " + holder))));
    } catch (JedisException e) {
      // it expires on its own
    } finally {
      redis.close();
    }
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Another backfill holds the load lease of the prefix: its holder, token and expiry are in the message. */
  public static final class Held extends IOException {
    private static final long serialVersionUID = 1L;

    Held(RedisAddress address, RedisLayout layout, String held, long pttlMillis) {
      super(message(address, layout, held, pttlMillis));
    }

    private static String message(RedisAddress address, RedisLayout layout, String held, long pttlMillis) {
      int space = held.indexOf(' ');
      String who = space < 0 ? held : held.substring(space + 1);
      String token = space < 0 ? "?" : held.substring(0, space);
      Instant until = Instant.now().plusMillis(Math.max(0, pttlMillis)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
      return "another backfill is loading " + layout + " at " + address + ": " + Json.quote(who)
          + " holds its load lease (token " + token + ") until " + until + " (" + (pttlMillis + 999) / 1000
          + " s from now, renewed while it runs); wait for it to finish, or load under another --redisKeyPrefix";
    }
  }
}
