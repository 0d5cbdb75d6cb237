/**
 * Redis as an index backend: one sorted set per group, loaded by the backfill's Redis sink and read by
 * {@link io.pagemark.redis.RedisIndex}. The storage format (key names, member encoding, metadata) is described in the
 * README's "Redis index format" and implemented by {@link io.pagemark.redis.RedisLayout} and
 * {@link io.pagemark.redis.SortedSetMember}, which need no Redis client; only {@link io.pagemark.redis.RedisIndex}
 * and {@link io.pagemark.redis.RedisAddress#connect} need Jedis, an optional dependency of this module.
 */
package io.pagemark.redis;
