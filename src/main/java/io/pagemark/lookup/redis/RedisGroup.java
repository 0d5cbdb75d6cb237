package io.pagemark.lookup.redis;

import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupRepublishedException;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.RankWindow;
import io.pagemark.lookup.RankedGroup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import io.pagemark.format.redis.RedisNodes;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * One group's live sorted set as a {@link RankedGroup}: the record at rank i is {@code ZRANGE key i i}. Every read
 * also reads the group's stamp in the same MULTI/EXEC (both keys share the group's hash slot, so this holds in a
 * cluster too), so a lookup never mixes two builds: if the group is republished between two reads, the second throws
 * {@link GroupRepublishedException}. A page start reads the count and the records it needs in one Lua script
 * ({@link #near}; a union's page start, {@link #snapshot}), so that the change stream, which rewrites the live set in
 * place, cannot shift a page under it.
 */
final class RedisGroup implements RankedGroup {
  private final RedisIndex index;
  private final RedisNodes redis;
  private final byte[] stampKey;
  private final byte[] liveKey;
  private final byte[] stamp;
  private final KeyValue group;
  private final long count;

  RedisGroup(RedisIndex index, RedisNodes redis, byte[] field, byte[] stamp, KeyValue group, long count) {
    this.index = index;
    this.redis = redis;
    this.stampKey = index.layout().stampKey(field);
    this.liveKey = index.layout().liveKey(field);
    this.stamp = stamp;
    this.group = group;
    this.count = count;
  }

  @Override
  public KeyValue group() {
    return group;
  }

  @Override
  public String groupAttribute() {
    return index.meta().groupAttribute();
  }

  @Override
  public List<KeyAttribute> attributes() {
    return index.meta().attributes();
  }

  @Override
  public String buildId() {
    return RedisLayout.stampBuild(stamp);
  }

  @Override
  public long count() {
    return count;
  }

  /**
   * KEYS: stamp, live set (one hash slot). ARGV: position, "asc" or "desc", radius. Returns the stamp (nil when the
   * group is gone), the count, the first rank read and the members within radius of the page start's centre (see
   * {@link RankedGroup#near}), all from one state: Redis runs a script without interleaving other commands.
   */
  static final byte[] NEAR =
      ("local stamp = redis.call('GET', KEYS[1])\n"
              + "local n = redis.call('ZCARD', KEYS[2])\n"
              + "local position, radius = tonumber(ARGV[1]), tonumber(ARGV[3])\n"
              + "local centre = position - 1\n"
              + "if ARGV[2] == 'desc' then centre = n - position end\n"
              + "local lo, hi = math.max(0, centre - radius), math.min(n - 1, centre + radius)\n"
              + "local members = {}\n"
              + "if lo <= hi then members = redis.call('ZRANGE', KEYS[2], lo, hi) end\n"
              + "return {stamp or false, n, lo, members}")
          .getBytes(StandardCharsets.UTF_8);
  private static final byte[] NEAR_SHA = sha1Hex(NEAR);

  @Override
  public RankedGroup near(long position, Order order, int radius) throws IOException {
    List<byte[]> args = List.of(Long.toString(position).getBytes(StandardCharsets.US_ASCII),
        (order == Order.ASC ? "asc" : "desc").getBytes(StandardCharsets.US_ASCII),
        Integer.toString(radius).getBytes(StandardCharsets.US_ASCII));
    List<?> reply = script(NEAR, NEAR_SHA, args);
    byte[] nowStamp = (byte[]) reply.get(0);
    checkStamp(nowStamp);
    long n = (Long) reply.get(1);
    long first = (Long) reply.get(2);
    List<IndexRecord> records = new ArrayList<>();
    long rank = first;
    for (Object m : (List<?>) reply.get(3)) {
      records.add(decode((byte[]) m, rank++));
    }
    if (n == 0) {
      throw missingSet();
    }
    return new RankWindow(this, n, first, records);
  }

  /**
   * KEYS: stamp, live set (one hash slot). ARGV: ascending ranks. Returns the stamp (nil when the group is gone), the
   * count and, per rank asked, its member (nil at or past the count), all from one state (see
   * {@link RankedGroup#snapshot}).
   */
  static final byte[] AT =
      ("local stamp = redis.call('GET', KEYS[1])\n"
              + "local n = redis.call('ZCARD', KEYS[2])\n"
              + "local members = {}\n"
              + "for i = 1, #ARGV do\n"
              + "  local rank = tonumber(ARGV[i])\n"
              + "  local m = false\n"
              + "  if rank < n then m = redis.call('ZRANGE', KEYS[2], rank, rank)[1] or false end\n"
              + "  members[i] = m\n"
              + "end\n"
              + "return {stamp or false, n, members}")
          .getBytes(StandardCharsets.UTF_8);
  private static final byte[] AT_SHA = sha1Hex(AT);

  @Override
  public RankedGroup snapshot(Set<Long> ranks) throws IOException {
    List<Long> asked = new ArrayList<>(new TreeSet<>(ranks));
    List<byte[]> args = new ArrayList<>();
    for (long rank : asked) {
      if (rank < 0) {
        throw new IndexOutOfBoundsException("rank " + rank + " of group " + group);
      }
      args.add(Long.toString(rank).getBytes(StandardCharsets.US_ASCII));
    }
    List<?> reply = script(AT, AT_SHA, args);
    checkStamp((byte[]) reply.get(0));
    long n = (Long) reply.get(1);
    if (n == 0) {
      throw missingSet();
    }
    Map<Long, IndexRecord> records = new TreeMap<>();
    List<?> members = (List<?>) reply.get(2);
    for (int i = 0; i < asked.size(); i++) {
      if (members.get(i) != null) {
        records.put(asked.get(i), decode((byte[]) members.get(i), asked.get(i)));
      }
    }
    return new RankWindow(this, n, records);
  }

  /** Runs a read script on the group's node: by its digest, or by its text when the node has not cached it yet. */
  private List<?> script(byte[] script, byte[] sha, List<byte[]> args) throws IOException {
    List<byte[]> keys = List.of(stampKey, liveKey);
    try {
      return (List<?>) redis.onKey(liveKey, j -> {
        try {
          return j.evalsha(sha, keys, args);
        } catch (JedisNoScriptException notCached) {
          return j.eval(script, keys, args); // EVAL caches it: later calls hit EVALSHA
        }
      });
    } catch (JedisException e) {
      throw index.failure("reading group " + group, e);
    }
  }

  private IOException missingSet() {
    return new IOException(index + ": group " + group + " is stamped build " + buildId() + " but its sorted set is"
        + " missing (did Redis lose data?); run the backfill again");
  }

  private static byte[] sha1Hex(byte[] script) {
    try {
      byte[] d = java.security.MessageDigest.getInstance("SHA-1").digest(script);
      return java.util.HexFormat.of().formatHex(d).getBytes(StandardCharsets.US_ASCII);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-1", e);
    }
  }

  private void checkStamp(byte[] nowStamp) throws GroupRepublishedException {
    if (!Arrays.equals(nowStamp, stamp)) {
      throw new GroupRepublishedException("group " + group + " changed from build " + buildId() + " to "
          + (nowStamp == null ? "nothing (removed)" : "build " + RedisLayout.stampBuild(nowStamp))
          + " while this lookup read it; look it up again");
    }
  }

  private IndexRecord decode(byte[] member, long rank) throws IOException {
    try {
      return SortedSetMember.decode(member, attributes());
    } catch (IllegalArgumentException e) {
      throw new IOException(index + ": corrupt member at rank " + rank + " of group " + group + " ("
          + e.getMessage() + ")", e);
    }
  }

  @Override
  public IndexRecord record(long rank) throws IOException {
    if (rank < 0 || rank >= count) {
      throw new IndexOutOfBoundsException("rank " + rank + " of " + count);
    }
    byte[] nowStamp;
    List<byte[]> members;
    try {
      Object[] read = redis.onKey(liveKey, j -> {
        Transaction t = j.multi();
        Response<byte[]> s = t.get(stampKey);
        Response<List<byte[]>> m = t.zrange(liveKey, rank, rank);
        RedisIndex.checkExec(t.exec());
        return new Object[] {s.get(), m.get()};
      });
      nowStamp = (byte[]) read[0];
      @SuppressWarnings("unchecked")
      List<byte[]> m = (List<byte[]>) read[1];
      members = m;
    } catch (JedisException e) {
      throw index.failure("reading group " + group, e);
    }
    checkStamp(nowStamp);
    if (members.size() != 1) {
      throw new IOException(index + ": group " + group + " of build " + buildId() + " has no member at rank " + rank
          + " although it had " + count + " (the sorted set was changed by something else than pagemark)");
    }
    return decode(members.get(0), rank);
  }

  @Override
  public void close() {}
}
