package io.pagemark.pipelines.backfill;

import org.apache.beam.sdk.options.Default;
import org.apache.beam.sdk.options.Description;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The backfill's Redis options ({@code --redis}, {@code --redisKeyPrefix}, {@code --redisBatchSize}, {@code --redisLeaseSeconds}); a pipeline's
 * options interface extends this one to offer them. {@link RedisSink} checks them and builds the sink.
 */
public interface RedisOptions extends PipelineOptions {
  @Description(
      "Load the index into Redis, besides or instead of --output: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], or a"
          + " Redis Cluster: redis-cluster://HOST:PORT[,HOST:PORT...]. One sorted set per group, published atomically"
          + " group by group.")
  String getRedis();

  void setRedis(String value);

  @Description("Prefix of every Redis key of the index (default pagemark:TABLE:INDEX:).")
  String getRedisKeyPrefix();

  void setRedisKeyPrefix(String value);

  @Description("Members per ZADD of the Redis load (8 ZADDs are pipelined per round trip).")
  @Default.Integer(1000)
  int getRedisBatchSize();

  void setRedisBatchSize(int value);

  @Description("Seconds the backfill's load lease on the Redis key prefix lasts unless renewed (it is renewed every"
      + " third of that while the backfill runs); a second backfill of the prefix fails while the lease is held.")
  @Default.Integer(30)
  int getRedisLeaseSeconds();

  void setRedisLeaseSeconds(int value);
}
