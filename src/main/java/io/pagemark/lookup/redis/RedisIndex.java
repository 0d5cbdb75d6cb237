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
import io.pagemark.format.redis.RedisNodes;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * A Redis index opened for lookups: one sorted set per group, published group by group (each group atomically) by
 * the backfill's Redis sink. Every group answers from one build, the one its live set holds when the group is opened;
 * if a newer build replaces it while a lookup reads it, the read throws
 * {@link io.pagemark.lookup.GroupRepublishedException} (open the group again). One server or a Redis Cluster alike
 * ({@link RedisNodes}); in a cluster, a lookup during resharding follows its group's slot. Thread-safe: it holds a
 * connection pool. Applications open it through {@link io.pagemark.lookup.Indexes#open(String)}.
 */
final class RedisIndex implements Index {
  private final RedisAddress address;
  private final RedisLayout layout;
  private final RedisIndexMeta meta;
  private final String requestedBuild;
  private final RedisNodes redis;

  private RedisIndex(
      RedisAddress address, RedisLayout layout, RedisIndexMeta meta, String requestedBuild, RedisNodes redis) {
    this.address = address;
    this.layout = layout;
    this.meta = meta;
    this.requestedBuild = requestedBuild;
    this.redis = redis;
  }

  /**
   * Opens the index a spec names: {@code redis://HOST[:PORT][/DB][?prefix=P]} or
   * {@code redis-cluster://HOST:PORT[,HOST:PORT...][?prefix=P]}. Without a prefix, the database must
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
    RedisNodes redis;
    try {
      redis = address.nodes("pagemark-lookup");
    } catch (JedisException e) {
      throw address.unreachable(e);
    }
    try {
      if (prefix == null) {
        prefix = onlyPrefix(address, redis);
      }
      RedisLayout layout = new RedisLayout(prefix);
      byte[] metaKey = layout.metaKey();
      Map<byte[], byte[]> hash = redis.onKey(metaKey, j -> j.hgetAll(metaKey));
      if (hash.isEmpty()) {
        byte[] v1 = layout.formatVersion1MetaKey();
        if (redis.onKey(v1, j -> j.exists(v1))) {
          throw new IOException(address + " " + layout + " holds a Redis index of format version 1, which this"
              + " version of pagemark does not read (it reads version " + RedisLayout.FORMAT_VERSION + ", laid out"
              + " for Redis Cluster); load it again with: pagemark backfill ... --redis=" + address
              + " (under another --redisKeyPrefix, or after deleting the old keys)");
        }
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

  private static String onlyPrefix(RedisAddress address, RedisNodes redis) throws IOException {
    Map<byte[], byte[]> all = redis.onKey(RedisLayout.REGISTRY, j -> j.hgetAll(RedisLayout.REGISTRY));
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
    byte[] stampKey = layout.stampKey(field);
    byte[] liveKey = layout.liveKey(field);
    try {
      Object[] read = redis.onKey(liveKey, j -> {
        Transaction t = j.multi();
        Response<byte[]> s = t.get(stampKey);
        Response<Long> n = t.zcard(liveKey);
        checkExec(t.exec());
        return new Object[] {s.get(), n.get()};
      });
      stamp = (byte[]) read[0];
      count = (Long) read[1];
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
    if (!java.util.Arrays.equals(RedisLayout.groupBytes(stored), field)) {
      throw new IOException(this + ": the keys of group " + key + " hold group " + stored + " (two group keys with"
          + " one digest, or keys written by something else than pagemark)");
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
   * The groups the index holds now, in no particular order: the stamps found by {@code SCAN} on every master (a group
   * published or removed while the scan runs may be missed or listed once more).
   */
  @Override
  public List<KeyValue> groups() throws IOException {
    List<KeyValue> groups = new ArrayList<>();
    ScanParams params = new ScanParams().match(layout.stampKeyPattern()).count(1000);
    try {
      for (List<byte[]> stamps : redis.onEachMaster(j -> {
        List<byte[]> found = new ArrayList<>();
        byte[] cursor = ScanParams.SCAN_POINTER_START_BINARY;
        do {
          ScanResult<byte[]> page = j.scan(cursor, params);
          // one GET per stamp, pipelined: MGET would cross slots in a cluster
          redis.clients.jedis.Pipeline p = j.pipelined();
          List<Response<byte[]>> values = new ArrayList<>();
          page.getResult().forEach(k -> values.add(p.get(k)));
          p.sync();
          for (Response<byte[]> v : values) {
            if (v.get() != null) {
              found.add(v.get());
            }
          }
          cursor = page.getCursorAsBytes();
        } while (!java.util.Arrays.equals(cursor, ScanParams.SCAN_POINTER_START_BINARY));
        return found;
      })) {
        for (byte[] stamp : stamps) {
          try {
            groups.add(KeyValue.of(groupType(), RedisLayout.stampGroup(stamp)));
          } catch (IllegalArgumentException bad) {
            throw new IOException(this + ": corrupt group stamp (" + bad.getMessage() + ")", bad);
          }
        }
      }
    } catch (JedisException e) {
      throw failure("listing the groups", e);
    }
    return groups;
  }

  /** Throws the error of a transaction's first failed command (MULTI/EXEC collects them instead of throwing). */
  static void checkExec(List<Object> replies) {
    if (replies == null) {
      throw new JedisDataException("EXECABORT the transaction was discarded");
    }
    for (Object r : replies) {
      if (r instanceof JedisException e) {
        throw e;
      }
    }
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
