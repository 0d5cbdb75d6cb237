package io.pagemark.transforms.sink.redis;

import io.pagemark.commit.redis.RedisSession;
import io.pagemark.transforms.source.RecordRef;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import redis.clients.jedis.Pipeline;

/**
 * Appends one flush of dead letters (JSON lines) to the list {@code P deadletters}, keeping the newest
 * {@value StreamToRedis#MAX_DEAD_LETTERS}. A retried push may repeat a line; a dead letter is never lost.
 */
final class PushRedisDeadLettersFn extends DoFn<KV<Integer, Iterable<KV<RecordRef, String>>>, RecordRef> {
  private final RedisStreamTarget target;
  private transient RedisSession redis;

  PushRedisDeadLettersFn(RedisStreamTarget target) {
    this.target = target;
  }

  @Setup
  public void setup() {
    redis = target.session("pagemark-stream-deadletters");
  }

  @ProcessElement
  public void process(@Element KV<Integer, Iterable<KV<RecordRef, String>>> shard, OutputReceiver<RecordRef> out) {
    List<byte[]> lines = new ArrayList<>();
    List<RecordRef> records = new ArrayList<>();
    for (KV<RecordRef, String> l : shard.getValue()) {
      records.add(l.getKey());
      lines.add(l.getValue().getBytes(StandardCharsets.UTF_8));
    }
    if (lines.isEmpty()) {
      return;
    }
    byte[] key = target.layout().deadLettersKey();
    redis.call("push dead letters", key, j -> {
      Pipeline p = j.pipelined();
      p.rpush(key, lines.toArray(byte[][]::new));
      p.ltrim(key, -StreamToRedis.MAX_DEAD_LETTERS, -1);
      return RedisSession.checkReplies(p.syncAndReturnAll());
    });
    records.forEach(out::output);
  }

  @Teardown
  public void teardown() {
    if (redis != null) {
      redis.close();
    }
  }
}
