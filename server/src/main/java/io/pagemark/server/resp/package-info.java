/**
 * {@code pagemark resp}: a Redis-protocol server over a file index ({@link io.pagemark.server.resp.RespServer},
 * started by {@code pagemark resp}). Each group is a sorted set: members are the items'
 * exclusive start keys in DynamoDB JSON, scores their ascending ranks; {@code ZADD}/{@code ZREM} stage changes in the
 * index's write-ahead log and {@code PM.COMMIT} merges them. See {@code docs/resp.md}.
 */
package io.pagemark.server.resp;
