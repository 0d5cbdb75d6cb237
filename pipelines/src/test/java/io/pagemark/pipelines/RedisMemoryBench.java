package io.pagemark.pipelines;

import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.RedisServer;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import io.pagemark.dynamo.IndexEntry;
import io.pagemark.dynamo.ItemKeys;
import io.pagemark.format.IndexRecord;
import io.pagemark.key.KeyValue;
import io.pagemark.format.redis.RedisLayout;
import io.pagemark.transforms.order.OrderedPart;
import io.pagemark.transforms.sink.redis.RedisLoadSummary;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Benchmark (run by {@code bench/redis-memory}, not part of the test suite): the memory Redis uses per member for
 * the demo's data (50,000 comments over 300 products, ids like {@code comment-0001234}, ISO timestamps) against the
 * baseline, the bytes per entry of the file index written from the same parts, measured in the same run. Writes its
 * report to {@code target/redis-memory.txt}.
 */
class RedisMemoryBench {
  @Test
  void redisMemoryPerMemberAgainstFileBytesPerEntry(@TempDir Path dir) throws Exception {
    int items = Integer.getInteger("bench.items", 50_000);
    Map<KeyValue, List<IndexEntry>> byGroup = new LinkedHashMap<>();
    for (var item : SampleComments.generate(items, 300, 42)) {
      IndexEntry e = ItemKeys.extract(TrickyParts.COMMENTS, item).entry();
      byGroup.computeIfAbsent(e.group(), g -> new ArrayList<>()).add(e);
    }
    Random r = new Random(1);
    List<OrderedPart> parts = new ArrayList<>();
    for (var g : byGroup.entrySet()) {
      List<IndexRecord> records = TrickyParts.records(g.getValue(), r);
      parts.addAll(TrickyParts.split(g.getKey(), records, 5_000));
    }

    long fileBytes = FileIndexFixture.write(dir.resolve("index"), TrickyParts.COMMENTS, "bench", parts);

    try (RedisServer redis = RedisServer.start(); Jedis j = redis.client()) {
      long before = usedMemory(j);
      RedisLoadSummary s = RedisLoads.run(parts, WriteRedisSortedSets.to(redis.uri())
          .withSchema(TrickyParts.COMMENTS).withBuild("bench", 0)).finish();
      long after = usedMemory(j);
      assertThat(s.entries(), is((long) items));
      RedisLayout layout = new RedisLayout(s.keyPrefix());
      Map<String, long[]> byEncoding = new LinkedHashMap<>(); // encoding -> {sets, members, bytes}
      long setBytes = 0;
      for (KeyValue g : byGroup.keySet()) {
        byte[] key = layout.liveKey(RedisLayout.groupBytes(g));
        long bytes = j.memoryUsage(key, 0);
        long members = j.zcard(key);
        String encoding = new String(j.objectEncoding(key), StandardCharsets.US_ASCII);
        long[] t = byEncoding.computeIfAbsent(encoding, e -> new long[3]);
        t[0]++;
        t[1] += members;
        t[2] += bytes;
        setBytes += bytes;
      }
      double filePerEntry = (double) fileBytes / items;
      double redisPerMember = (double) setBytes / items;
      StringBuilder report = new StringBuilder();
      report.append(String.format("pagemark Redis memory benchmark: demo data, %,d entries in %,d groups (%s)%n",
          items, byGroup.size(), j.info("server").lines().filter(l -> l.startsWith("redis_version:")).findFirst()
              .orElse("")));
      report.append(String.format("  baseline  file index:  %,d bytes of group files = %.1f bytes per entry%n",
          fileBytes, filePerEntry));
      report.append(String.format("  redis     MEMORY USAGE of the %,d sets: %,d bytes = %.1f bytes per member"
          + " (%.2fx the file index)%n", byGroup.size(), setBytes, redisPerMember, redisPerMember / filePerEntry));
      for (var e : byEncoding.entrySet()) {
        long[] t = e.getValue();
        report.append(String.format("            %-9s %,5d sets, %,7d members, %.1f bytes per member%n",
            e.getKey(), t[0], t[1], (double) t[2] / t[1]));
      }
      report.append(String.format("  redis     INFO used_memory grew by %,d bytes = %.1f bytes per member"
          + " (all keys: sets, groups hash, meta)%n", after - before, (double) (after - before) / items));
      System.out.print(report);
      Files.writeString(Path.of("target", "redis-memory.txt"), report.toString());
    }
  }

  private static long usedMemory(Jedis j) {
    return j.info("memory").lines().filter(l -> l.startsWith("used_memory:")).findFirst()
        .map(l -> Long.parseLong(l.substring("used_memory:".length()).trim())).orElseThrow();
  }
}
