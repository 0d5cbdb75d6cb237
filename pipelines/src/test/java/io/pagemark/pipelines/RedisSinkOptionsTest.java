package io.pagemark.pipelines;

import io.pagemark.pipelines.backfill.RedisOptions;
import io.pagemark.pipelines.backfill.RedisSink;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.junit.jupiter.api.Test;

class RedisSinkOptionsTest {
  static RedisOptions parse(String... args) {
    return PipelineOptionsFactory.fromArgs(args).as(RedisOptions.class);
  }

  @Test
  void theOptionsConfigureTheSink() {
    RedisOptions o = parse("--redis=redis://127.0.0.1:6390/2", "--redisKeyPrefix=p:", "--redisBatchSize=50");
    WriteRedisSortedSets w = RedisSink.of(o).withSchema(TrickyParts.COMMENTS).withBuild("b1", 0);
    assertThat(w.keyPrefix(), equalTo("p:"));
    assertThat(w.buildId(), equalTo("b1"));
    WriteRedisSortedSets byDefault = RedisSink.of(parse("--redis=redis://h")).withSchema(TrickyParts.COMMENTS);
    assertThat(byDefault.keyPrefix(), equalTo("pagemark:comments:byProduct:"));
    assertThat(RedisSink.of(parse()), nullValue());
  }

  @Test
  void badOptionsAreUsageErrorsNamingTheOption() {
    assertThat(assertThrows(IllegalArgumentException.class, () -> RedisSink.check(parse("--redis=http://h")))
        .getMessage(), containsString("--redis: \"http://h\" is not a Redis URI"));
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> RedisSink.check(parse("--redis=redis://h", "--redisBatchSize=0"))).getMessage(),
        containsString("--redisBatchSize must be between 1 and 100000, not 0"));
    assertThat(assertThrows(IllegalArgumentException.class,
        () -> RedisSink.check(parse("--redisKeyPrefix=x"))).getMessage(), containsString("--redisKeyPrefix needs --redis"));
  }
}
