package io.pagemark.transforms.sink.redis;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pagemark.dynamo.KeySchema;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.KeyValue;
import io.pagemark.testing.RedisExtension;
import io.pagemark.testing.RedisServer;
import io.pagemark.format.redis.RedisAddress;
import io.pagemark.format.redis.RedisIndexMeta;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.format.redis.SortedSetMember;
import java.util.List;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.IterableCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.SerializableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.View;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

/**
 * The sink's last two guards, step by step: a temporary set that does not hold exactly what its parts loaded is never
 * published, a publish that is retried after it succeeded is recognized, a build whose published groups Redis
 * lost meanwhile does not finish, and a build whose load lease another backfill took over publishes nothing.
 */
@ExtendWith(RedisExtension.class)
class RedisPublishIT {
  static final int DB = 10;
  static final KeySchema SCHEMA = new KeySchema("t", "i", "G", KeyType.S,
      List.of(new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY)), "PK", null);
  static final KeyValue GROUP = KeyValue.ofString("g");

  RedisServer redis;
  RedisTarget target;
  RedisLayout layout;

  @BeforeEach
  void clean(RedisServer redis) throws Exception {
    this.redis = redis;
    try (Jedis j = client()) {
      j.flushDB();
    }
    target = RedisTarget.builder()
        .setAddress(RedisAddress.parse("redis://127.0.0.1:" + redis.port() + "/" + DB))
        .setKeyPrefix("test:publish:")
        .setSchema(RedisIndexMeta.schema("t", "i", "G", KeyType.S, SCHEMA.storedAttributes()))
        .setBuildId("b2")
        .setBuildTimeMillis(0)
        .setBatchSize(10)
        .setTemporaryTtlMillis(60_000)
        .setMaxRetryMillis(2_000)
        .build();
    layout = target.layout();
  }

  Jedis client() {
    Jedis j = redis.client();
    j.select(DB);
    return j;
  }

  /** Loads {@code n} members into the build's temporary set of the group, as the parts would. */
  void loadTemp(int n) {
    try (Jedis j = client()) {
      for (int i = 0; i < n; i++) {
        IndexRecord r = IndexRecord.unique(List.of(KeyValue.ofString(String.format("s%03d", i))));
        j.zadd(layout.tempKey("b2", RedisLayout.groupBytes(GROUP)), 0, SortedSetMember.encode(r, SCHEMA
            .storedAttributes()));
      }
    }
  }

  void publish(long claimed) {
    PartLoaded part = new PartLoaded(RedisLayout.groupBytes(GROUP), RedisLayout.stamp("b2", GROUP),
        GROUP.toString(), 0, 1, claimed, 0, 0);
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create().as(DirectOptions.class));
    p.apply(Create.of(KV.of(new byte[] {1}, (Iterable<PartLoaded>) List.of(part)))
            .withCoder(KvCoder.of(ByteArrayCoder.of(), IterableCoder.of(SerializableCoder.of(PartLoaded.class)))))
        .apply(ParDo.of(new PublishGroupFn(target)));
    p.run().waitUntilFinish();
  }

  @Test
  void aTemporarySetThatLostMembersIsNotPublishedAndTheLiveSetStays() {
    byte[] live = layout.liveKey(RedisLayout.groupBytes(GROUP));
    try (Jedis j = client()) {
      j.zadd(live, 0, new byte[] {42});
      j.set(layout.stampKey(RedisLayout.groupBytes(GROUP)), RedisLayout.stamp("b1", GROUP));
    }
    loadTemp(29);
    RuntimeException e = assertThrows(RuntimeException.class, () -> publish(30));
    assertThat(rootMessage(e), equalTo("group {\"S\":\"g\"}: its temporary set holds 29 of the 30 members this build"
        + " loaded into it, so it was not published (did Redis restart without persistence, or evict keys under"
        + " maxmemory?); run the backfill again"));
    try (Jedis j = client()) {
      assertThat(j.zcard(live), is(1L));
      assertThat(RedisLayout.stampBuild(j.get(layout.stampKey(RedisLayout.groupBytes(GROUP)))), equalTo("b1"));
    }
  }

  @Test
  void aPublishRetriedAfterItSucceededIsRecognized() {
    loadTemp(30);
    publish(30);
    publish(30); // the temporary set is gone now, the live set is this build's: nothing to do
    try (Jedis j = client()) {
      assertThat(j.zcard(layout.liveKey(RedisLayout.groupBytes(GROUP))), is(30L));
    }
    RuntimeException e = assertThrows(RuntimeException.class, () -> publish(31));
    assertThat(rootMessage(e), containsString("holds 0 of the 31 members"));
  }

  @Test
  void aBuildWhosePublishedGroupsRedisLostDoesNotFinish() {
    GroupPublished lost = new GroupPublished(RedisLayout.groupBytes(GROUP), RedisLayout.stamp("b2", GROUP),
        GROUP.toString(), 30, 0, 0);
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create().as(DirectOptions.class));
    PCollectionView<Iterable<GroupPublished>> view =
        p.apply("Published", Create.of(List.of(lost)).withCoder(SerializableCoder.of(GroupPublished.class)))
            .apply(View.asIterable());
    p.apply("Trigger", Create.of("b2").withCoder(StringUtf8Coder.of()))
        .apply(ParDo.of(new FinishRedisBuildFn(target, view)).withSideInputs(view));
    RuntimeException e = assertThrows(RuntimeException.class, () -> p.run().waitUntilFinish());
    assertThat(rootMessage(e), containsString("no longer holds 1 of the 1 groups this build published (e.g."
        + " {\"S\":\"g\"}): did it restart without persistence"));
    try (Jedis j = client()) {
      assertThat("the build is not recorded", j.exists(layout.metaKey()), is(false));
    }
  }

  @Test
  void aBuildFencedOutOfTheLoadLeaseNeitherPublishesNorRecordsItsBuild() throws Exception {
    RedisAddress address = RedisAddress.parse("redis://127.0.0.1:" + redis.port() + "/" + DB);
    long stale;
    try (RedisLoadLease first = RedisLoadLease.acquire(address, "test:publish:", "first", java.time.Duration.ofSeconds(30))) {
      stale = first.token();
      RedisLoadLease.Held held = assertThrows(RedisLoadLease.Held.class, () -> RedisLoadLease.acquire(address,
          "test:publish:", "second", java.time.Duration.ofSeconds(30)));
      assertThat(held.getMessage(), containsString("\"first\" holds its load lease (token " + stale + ") until "));
      try (Jedis j = client()) {
        j.del(layout.loaderLeaseKey()); // as if the first holder paused past its lease's expiry
      }
      try (RedisLoadLease second = RedisLoadLease.acquire(address, "test:publish:", "second",
          java.time.Duration.ofSeconds(30))) {
        assertThat("a later holder's token is larger", second.token() > stale, is(true));
        target = target.toBuilder().setLoadLeaseToken(stale).build();
        loadTemp(30);
        RuntimeException e = assertThrows(RuntimeException.class, () -> publish(30));
        assertThat(rootMessage(e), containsString("build b2 lost the load lease (its token " + stale + ") to \""
            + second.token() + " second\", so it did not publish group"));
        try (Jedis j = client()) {
          assertThat(j.exists(layout.liveKey(RedisLayout.groupBytes(GROUP))), is(false));
        }
        Pipeline p = Pipeline.create(PipelineOptionsFactory.create().as(DirectOptions.class));
        PCollectionView<Iterable<GroupPublished>> none =
            p.apply("Published", Create.empty(SerializableCoder.of(GroupPublished.class))).apply(View.asIterable());
        p.apply("Trigger", Create.of("b2").withCoder(StringUtf8Coder.of()))
            .apply(ParDo.of(new FinishRedisBuildFn(target, none)).withSideInputs(none));
        e = assertThrows(RuntimeException.class, () -> p.run().waitUntilFinish());
        assertThat(rootMessage(e), containsString("so it did not record build b2"));
        try (Jedis j = client()) {
          assertThat("the build is not recorded", j.exists(layout.metaKey()), is(false));
        }
      }
    }
    try (Jedis j = client()) {
      assertThat("the holder released its lease", j.exists(layout.loaderLeaseKey()), is(false));
    }
  }

  @Test
  void aLeaseThatARedisRestartLostStaysTheHoldersWhileNoLaterTokenWasHandedOut() throws Exception {
    RedisAddress address = RedisAddress.parse("redis://127.0.0.1:" + redis.port() + "/" + DB);
    try (RedisLoadLease lease = RedisLoadLease.acquire(address, "test:publish:", "only",
        java.time.Duration.ofSeconds(30))) {
      try (Jedis j = client()) {
        j.del(layout.loaderLeaseKey(), layout.loaderTokenKey()); // what a restart without persistence leaves
      }
      target = target.toBuilder().setLoadLeaseToken(lease.token()).build();
      loadTemp(30);
      publish(30);
      try (Jedis j = client()) {
        assertThat(j.zcard(layout.liveKey(RedisLayout.groupBytes(GROUP))), is(30L));
      }
    }
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage();
  }
}
