/**
 * Redis as an index backend: one sorted set per group, loaded by the backfill's Redis sink and read by the lookup
 * library's Redis reader (open it with {@link io.pagemark.lookup.Indexes#open(String)} and a
 * {@code redis://} spec). The storage format (key names, member encoding, metadata) is described in
 * {@code docs/redis.md} and implemented by {@link io.pagemark.format.redis.RedisLayout} and
 * {@link io.pagemark.format.redis.SortedSetMember}, which need no Redis client; only the reader,
 * {@link io.pagemark.format.redis.RedisNodes} (one server or a Redis Cluster) and
 * {@link io.pagemark.format.redis.RedisAddress#connect} need Jedis, an optional dependency of this module.
 */
package io.pagemark.format.redis;
