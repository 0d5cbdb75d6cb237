package io.pagemark.lookup.redis;

import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;

import io.pagemark.key.Json;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupNotFoundException;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.AbstractTransaction;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Response;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Redis index opened for lookups: one sorted set per group, published group by group (each group atomically) by
 * the backfill's Redis sink. Every group answers from one build, the one its live set holds when the group is opened;
 * if a newer build replaces it while a lookup reads it, the read throws
 * {@link io.pagemark.lookup.GroupRepublishedException} (open the group again). Thread-safe: it holds a connection
 * pool. Applications open it through {@link io.pagemark.lookup.Indexes#open(String)}.
 */
final class RedisIndex implements Index {
  private final RedisAddress address;
  private final RedisLayout layout;
  private final RedisIndexMeta meta;
  private final String requestedBuild;
  private final JedisPooled redis;

  private RedisIndex(
      RedisAddress address, RedisLayout layout, RedisIndexMeta meta, String requestedBuild, JedisPooled redis) {
    this.address = address;
    this.layout = layout;
    this.meta = meta;
    this.requestedBuild = requestedBuild;
    this.redis = redis;
  }

  /**
   * Opens the index a spec names: {@code redis://HOST[:PORT][/DB][?prefix=P]}. Without a prefix, the database must
   * hold exactly one pagemark index. With {@code buildId}, a group is answered only if Redis holds that build of it
   * (Redis keeps only the live build of each group); null answers every group from its live build. Throws an
   * {@link IOException} that says what is missing.
   */
  static RedisIndex open(String spec, String buildId) throws IOException {
    int q = spec.indexOf('?');
    RedisAddress address = RedisAddress.parse(q < 0 ? spec : spec.substring(0, q));
    String prefix = q < 0 ? null : prefixOf(spec);
    return open(address, prefix, buildId);
  }

  /** Opens the index under a key prefix (null: the only index of the database). */
  static RedisIndex open(RedisAddress address, String prefix, String buildId) throws IOException {
    JedisPooled redis = address.pool("pagemark-lookup");
    try {
      if (prefix == null) {
        prefix = onlyPrefix(address, redis);
      }
      RedisLayout layout = new RedisLayout(prefix);
      Map<byte[], byte[]> hash = redis.hgetAll(layout.metaKey());
      if (hash.isEmpty()) {
        throw new IOException("no pagemark index under " + layout + " at " + address
            + " (load one with: pagemark backfill ... --redis=" + address + ")");
      }
      RedisIndexMeta meta;
      try {
        meta = RedisIndexMeta.fromHash(hash);
      } catch (IllegalArgumentException e) {
        throw new IOException(address + " " + layout + ": " + e.getMessage(), e);
      }
      if (meta.buildId() == null) {
        throw new IOException("the first build of the index under " + layout + " at " + address
            + " has not finished loading");
      }
      return new RedisIndex(address, layout, meta, buildId, redis);
    } catch (JedisConnectionException e) {
      redis.close();
      throw address.unreachable(e);
    } catch (JedisException e) {
      redis.close();
      throw new IOException("reading the pagemark index at " + address + " failed: " + RedisAddress.rootMessage(e), e);
    } catch (IOException | RuntimeException e) {
      redis.close();
      throw e;
    }
  }

  private static String prefixOf(String spec) {
    String query;
    try {
      query = new URI(spec).getQuery();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("\"" + spec + "\" is not a valid URI (" + e.getReason() + ")");
    }
    if (query == null || !query.startsWith("prefix=") || query.length() == "prefix=".length()) {
      throw new IllegalArgumentException("\"" + spec + "\": the only query a Redis index takes is ?prefix=KEYPREFIX"
          + " (percent-encoded)");
    }
    return query.substring("prefix=".length());
  }

  private static String onlyPrefix(RedisAddress address, JedisPooled redis) throws IOException {
    Map<byte[], byte[]> all = redis.hgetAll(RedisLayout.REGISTRY);
    List<String> prefixes = new ArrayList<>();
    all.keySet().forEach(k -> prefixes.add(new String(k, StandardCharsets.UTF_8)));
    if (prefixes.size() == 1) {
      return prefixes.get(0);
    }
    if (prefixes.isEmpty()) {
      throw new IOException("no pagemark index at " + address + " (load one with: pagemark backfill ... --redis="
          + address + ")");
    }
    prefixes.sort(null);
    List<String> quoted = new ArrayList<>();
    prefixes.forEach(p -> quoted.add(Json.quote(p)));
    throw new IOException(address + " holds " + prefixes.size() + " pagemark indexes, with key prefixes "
        + String.join(", ", quoted) + "; choose one with " + address + "?prefix=KEYPREFIX");
  }

  @Override
  public String groupAttribute() {
    return meta.groupAttribute();
  }

  @Override
  public String sortAttribute() {
    return meta.attributes().get(0).name();
  }

  /** What the meta hash says: key schema and the last finished build. */
  RedisIndexMeta meta() {
    return meta;
  }

  RedisLayout layout() {
    return layout;
  }

  /** The last build that finished loading (groups are published one by one, so a group may already be newer). */
  @Override
  public String buildId() {
    return meta.buildId();
  }

  @Override
  public KeyType groupType() {
    return meta.groupType();
  }

  @Override
  public GroupPages group(KeyValue key) throws IOException, GroupNotFoundException {
    if (java.util.Objects.requireNonNull(key, "key").type() != groupType()) {
      throw new IllegalArgumentException(
          "group keys of this index are of type " + groupType() + ", not " + key.type());
    }
    byte[] field = RedisLayout.groupBytes(key);
    byte[] stamp;
    long count;
    try (AbstractTransaction t = redis.multi()) {
      Response<byte[]> s = t.hget(layout.groupsKey(), field);
      Response<Long> n = t.zcard(layout.liveKey(field));
      t.exec();
      stamp = s.get();
      count = n.get();
    } catch (JedisException e) {
      throw failure("opening group " + key, e);
    }
    if (stamp == null) {
      throw new GroupNotFoundException("group " + key + " is not in the index under " + layout + " at " + address);
    }
    String build;
    KeyValue stored;
    try {
      build = RedisLayout.stampBuild(stamp);
      stored = KeyValue.of(groupType(), RedisLayout.stampGroup(stamp));
    } catch (IllegalArgumentException e) {
      throw new IOException(this + ": corrupt stamp of group " + key + " (" + e.getMessage() + ")", e);
    }
    if (requestedBuild != null && !requestedBuild.equals(build)) {
      throw new GroupNotFoundException("group " + key + " is at build " + build + " in " + this + ", not "
          + requestedBuild + " (Redis keeps only the live build of each group)");
    }
    if (count == 0) {
      throw new IOException(this + ": group " + key + " is stamped build " + build + " but its sorted set is"
          + " missing (did Redis lose data?); run the backfill again");
    }
    return new GroupPages(new RedisGroup(this, redis, field, stamp, stored, count));
  }

  /**
   * The groups the index holds now, in no particular order: the fields of its groups hash, read with {@code HSCAN} (a
   * group published or removed while the scan runs may be missed or listed once more).
   */
  @Override
  public List<KeyValue> groups() throws IOException {
    List<KeyValue> groups = new ArrayList<>();
    ScanParams params = new ScanParams().count(1000);
    byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
    try {
      do {
        ScanResult<Map.Entry<byte[], byte[]>> page = redis.hscan(layout.groupsKey(), cursor, params);
        for (Map.Entry<byte[], byte[]> e : page.getResult()) {
          try {
            groups.add(KeyValue.of(groupType(), RedisLayout.stampGroup(e.getValue())));
          } catch (IllegalArgumentException bad) {
            throw new IOException(this + ": corrupt group stamp (" + bad.getMessage() + ")", bad);
          }
        }
        cursor = page.getCursorAsBytes();
      } while (!java.util.Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
    } catch (JedisException e) {
      throw failure("listing the groups", e);
    }
    return groups;
  }

  /** An IOException for a failed Redis call, naming the index and what was being done. */
  IOException failure(String what, JedisException e) {
    if (e instanceof JedisConnectionException) {
      return address.unreachable(e);
    }
    return new IOException(this + ": " + what + " failed: " + RedisAddress.rootMessage(e), e);
  }

  @Override
  public void close() {
    redis.close();
  }

  /** {@code redis://HOST:PORT/DB prefix "P"}. */
  @Override
  public String toString() {
    return address + " " + layout;
  }
}
