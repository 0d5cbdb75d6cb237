/**
 * {@code pagemark resp}: a Redis-protocol server over an index ({@link io.pagemark.server.resp.RespServer},
 * started by {@code pagemark resp}): a file index, read straight from its group files, or any other store the lookup
 * library opens (page markers inside DynamoDB), read-only. Each group is a sorted set: members are the items'
 * exclusive start keys in DynamoDB JSON, scores their ascending ranks; over a file index {@code ZADD}/{@code ZREM}
 * stage changes in the index's write-ahead log and {@code PM.COMMIT} merges them. See {@code docs/resp.md}.
 */
package io.pagemark.server.resp;
