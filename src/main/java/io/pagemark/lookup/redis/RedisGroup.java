package io.pagemark.lookup.redis;

import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;

import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupRepublishedException;
import io.pagemark.lookup.RankedGroup;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import io.pagemark.format.redis.RedisNodes;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.exceptions.JedisException;

/**
 * One group's live sorted set as a {@link RankedGroup}: the record at rank i is {@code ZRANGE key i i}. Every read
 * also reads the group's stamp in the same MULTI/EXEC (both keys share the group's hash slot, so this holds in a
 * cluster too), so a lookup never mixes two builds: if the group is republished between two reads, the second throws
 * {@link GroupRepublishedException}.
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
    if (!Arrays.equals(nowStamp, stamp)) {
      throw new GroupRepublishedException("group " + group + " changed from build " + buildId() + " to "
          + (nowStamp == null ? "nothing (removed)" : "build " + RedisLayout.stampBuild(nowStamp))
          + " while this lookup read it; look it up again");
    }
    if (members.size() != 1) {
      throw new IOException(index + ": group " + group + " of build " + buildId() + " has no member at rank " + rank
          + " although it had " + count + " (the sorted set was changed by something else than pagemark)");
    }
    try {
      return SortedSetMember.decode(members.get(0), attributes());
    } catch (IllegalArgumentException e) {
      throw new IOException(index + ": corrupt member at rank " + rank + " of group " + group + " ("
          + e.getMessage() + ")", e);
    }
  }

  @Override
  public void close() {}
}
