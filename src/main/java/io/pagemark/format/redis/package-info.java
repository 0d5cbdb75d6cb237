/**
 * Redis as an index backend: one sorted set per group, loaded by the backfill's Redis sink and read by
 * {@link io.pagemark.lookup.redis.RedisIndex}. The storage format (key names, member encoding, metadata) is described in the
 * README's "Redis index format" and implemented by {@link io.pagemark.format.redis.RedisLayout} and
 * {@link io.pagemark.format.redis.SortedSetMember}, which need no Redis client; only {@link io.pagemark.lookup.redis.RedisIndex}
 * and {@link io.pagemark.format.redis.RedisAddress#connect} need Jedis, an optional dependency of this module.
 */
package io.pagemark.format.redis;

import io.pagemark.lookup.redis.RedisIndex;
