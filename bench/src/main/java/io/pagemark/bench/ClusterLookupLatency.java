package io.pagemark.bench;

import io.pagemark.transforms.order.IndexEntryCoder;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.lookup.PageStart;
import io.pagemark.testing.RedisCluster;
import io.pagemark.testing.RedisServer;
import io.pagemark.transforms.BuildIndex;
import io.pagemark.transforms.sink.redis.WriteRedisSortedSets;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.ParDo;

/**
 * Rank lookup latency on a Redis Cluster against one redis-server: one build of synthetic entries (one group, as
 * large as the first throughput build's hot group) loaded by one pipeline through two Redis sinks, into a 3-master cluster on loopback
 * ({@code redis-cluster://}) and into a redis-server on loopback (the baseline); then p50 and p99 of
 * {@link GroupPages#pageStart} on random pages of the hot group, timed with {@code System.nanoTime} after a warm-up,
 * through the library's reader ({@code Indexes.open}) for both, alternating the two in rounds so that the machine's
 * load hits both alike.
 */
final class ClusterLookupLatency implements Bench {
  static String name(String percentile) {
    return "rank lookup " + percentile + ", Redis Cluster (3 masters) vs one redis-server";
  }

  @Override
  public String id() {
    return "cluster-lookup";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    return List.of(name("p50"), name("p99"));
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    // the hot group of the first throughput build alone (10,000 entries quick, 50,000 full): a lookup reads one group
    SyntheticEntries first = sizes.builds().get(0).entries();
    SyntheticEntries spec = new SyntheticEntries(first.hotEntries(), 1, first.hotEntries());
    RedisServer single = context.redis();
    RedisCluster cluster = context.redisCluster();
    String prefix = "bench:cluster-lookup:" + System.nanoTime() + ":";
    BuildIndex build = BuildIndex.of(SyntheticEntries.schema())
        .withSink(WriteRedisSortedSets.to(single.uri()).withKeyPrefix(prefix))
        .withSink(WriteRedisSortedSets.to(cluster.uri()).withKeyPrefix(prefix));
    Pipeline p = Pipeline.create(PipelineOptionsFactory.fromArgs(
        Sizes.Runner.DIRECT.options().toArray(String[]::new)).create());
    p.apply("Entry numbers", GenerateSequence.from(0).to(spec.entries()))
        .apply("Synthetic entries", ParDo.of(new BuildJob.EntryFn(spec)))
        .setCoder(IndexEntryCoder.of())
        .apply("Build index", build);
    long started = System.nanoTime();
    context.progress().printf("bench: loading %,d entries into a redis-server and a Redis Cluster ...%n",
        spec.entries());
    PipelineResult.State state = p.run().waitUntilFinish();
    if (state != PipelineResult.State.DONE) {
      throw new IllegalStateException("the Redis build ended in state " + state);
    }
    context.progress().printf("bench: loaded in %.0f s%n", (System.nanoTime() - started) / 1e9);

    String query = "?prefix=" + URLEncoder.encode(prefix, StandardCharsets.UTF_8);
    int n = sizes.warmLookups();
    Samples onSingle = new Samples(n);
    Samples onCluster = new Samples(n);
    long pages;
    try (Index s = Indexes.open(single.uri() + query);
        Index c = Indexes.open(cluster.uri() + query);
        GroupPages gs = s.group(io.pagemark.key.KeyValue.ofString(SyntheticEntries.hotGroup()));
        GroupPages gc = c.group(io.pagemark.key.KeyValue.ofString(SyntheticEntries.hotGroup()))) {
      if (gs.count() != spec.hotEntries() || gc.count() != spec.hotEntries()) {
        throw new IllegalStateException("the hot group holds " + gs.count() + " entries in redis-server and "
            + gc.count() + " in the cluster; expected " + spec.hotEntries());
      }
      pages = gs.pages(Sizes.PAGE_SIZE);
      Random random = new Random(11);
      long sink = 0;
      for (int i = 0; i < Math.min(n, 2_000); i++) { // warm-up: connections, JIT
        long page = 1 + random.nextInt((int) pages);
        sink += lookup(gs, page) + lookup(gc, page);
      }
      int round = 500;
      for (int done = 0; done < n; done += round) {
        for (GroupPages g : List.of(gs, gc)) {
          Samples into = g == gs ? onSingle : onCluster;
          Random r = new Random(done);
          for (int i = done; i < Math.min(n, done + round); i++) {
            long page = 1 + r.nextInt((int) pages);
            long t0 = System.nanoTime();
            long got = lookup(g, page);
            into.add(System.nanoTime() - t0);
            sink += got;
          }
        }
      }
      if (sink == 42) {
        context.progress().println(); // keeps the lookups' results alive
      }
    }
    String baseline = "one redis-server on 127.0.0.1, same build, same reader";
    String note = String.format("%,d timed lookups on each after %,d warm-up, alternating in rounds of 500;"
        + " random pages of %,d (%,d entries in the hot group, %d a page); each lookup opens nothing: one"
        + " MULTI GET(stamp) ZRANGE(key, i, i) EXEC exchange with the master of the group's slot",
        n, Math.min(n, 2_000), pages, spec.hotEntries(), Sizes.PAGE_SIZE);
    context.report(new Figure(name("p50"), onCluster.percentileMicros(50), "us", baseline,
        onSingle.percentileMicros(50), "us", note));
    context.report(new Figure(name("p99"), onCluster.percentileMicros(99), "us", baseline,
        onSingle.percentileMicros(99), "us", note));
  }

  private static long lookup(GroupPages g, long page) throws Exception {
    PageStart p = g.pageStart(page, Sizes.PAGE_SIZE, Order.ASC);
    return p.skip() + (p.exclusiveStartKey() == null ? 0 : p.exclusiveStartKey().size());
  }
}
