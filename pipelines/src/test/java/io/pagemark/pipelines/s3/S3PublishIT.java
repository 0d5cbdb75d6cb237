package io.pagemark.pipelines.s3;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItems;
import static org.hamcrest.Matchers.is;

import io.pagemark.format.GroupPaths;
import io.pagemark.format.s3.S3IndexStore;
import io.pagemark.format.s3.S3Location;
import io.pagemark.key.KeyValue;
import io.pagemark.lookup.GroupPages;
import io.pagemark.lookup.Index;
import io.pagemark.lookup.Indexes;
import io.pagemark.lookup.Order;
import io.pagemark.pipelines.BackfillIT;
import io.pagemark.pipelines.TrickyTable;
import io.pagemark.pipelines.cli.LookupCommand;
import io.pagemark.pipelines.demo.SampleComments;
import io.pagemark.testing.DynamoDbLocal;
import io.pagemark.testing.S3Proxy;
import io.pagemark.testing.DynamoDbLocalExtension;
import io.pagemark.testing.S3ProxyExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Readers of an index in S3 never see a partial build: lookups loop in two threads while a new build is written and
 * published and {@code pagemark gc} removes an old build and an abandoned one; no lookup fails, every group answers
 * from the build its reader resolved, and every page start is the one the index had before.
 */
@ExtendWith({DynamoDbLocalExtension.class, S3ProxyExtension.class})
class S3PublishIT {
  static final String TABLE = "publishS3";
  static final List<String> GROUPS = List.of("ties", "utf", "big", "../x");

  @Test
  void lookupsNeverFailNorMixBuildsWhileABuildIsPublishedAndGcRuns(DynamoDbLocal local, S3Proxy s3)
      throws Exception {
    String bucket = s3.createBucket("publish");
    String output = "s3://" + bucket + "/index";
    String spec = s3.spec(bucket, "index");
    try (DynamoDbClient client = local.client()) {
      TrickyTable.create(client, TABLE);
      SampleComments.load(client, TABLE, TrickyTable.items(17), 2, null);
    }
    for (String id : List.of("b1-first", "b2-second")) {
      assertThat(backfill(local, s3, output, id).code(), is(0));
    }
    try (S3IndexStore store = new S3IndexStore(S3Location.parse(spec))) { // what a killed backfill leaves
      String file = GroupPaths.relativePath(KeyValue.ofString("ties"));
      store.put("builds/b0-abandoned/" + file, store.read("builds/b1-first/" + file));
    }
    Map<String, String> expected = pageStarts(spec, null);

    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    Map<String, AtomicLong> opensByBuild = new ConcurrentHashMap<>();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      Thread reader = new Thread(() -> {
        while (!stop.get()) {
          try {
            String build = read(spec, expected);
            opensByBuild.computeIfAbsent(build, b -> new AtomicLong()).incrementAndGet();
          } catch (Throwable e) {
            failures.add(e.toString());
          }
        }
      });
      reader.start();
      readers.add(reader);
    }
    try {
      BackfillIT.Result third = backfill(local, s3, output, "b3-third");
      assertThat(third.err(), third.code(), is(0));
      BackfillIT.Result gc = BackfillIT.cli("gc", "--index=" + output, "--s3Endpoint=" + s3.endpoint(), "--keep=2",
          "--graceMinutes=0");
      assertThat(gc.err(), gc.code(), is(0));
      assertThat(gc.out(), containsString("removed 1 build(s) and 1 abandoned partial build(s); kept 2: b2-second,"
          + " b3-third"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (count(opensByBuild, "b3-third") < 20 && failures.isEmpty() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
    } finally {
      stop.set(true);
      for (Thread r : readers) {
        r.join();
      }
    }
    assertThat(failures.stream().limit(5).toList(), empty());
    assertThat("lookups ran on the old build and on the new one: " + opensByBuild,
        count(opensByBuild, "b2-second") + count(opensByBuild, "b3-third"), greaterThan(40L));
    assertThat(opensByBuild.keySet(), hasItems("b3-third"));
    assertThat(opensByBuild.keySet().stream().sorted().toList(),
        equalTo(opensByBuild.keySet().stream().filter(b -> b.equals("b2-second") || b.equals("b3-third")).sorted()
            .toList()));
    try (S3IndexStore store = new S3IndexStore(S3Location.parse(spec))) {
      assertThat(store.builds(), equalTo(List.of("b2-second", "b3-third")));
      assertThat(store.partials().keySet(), empty());
      assertThat(store.list("builds/b1-first/"), empty());
    }
  }

  private static long count(Map<String, AtomicLong> m, String build) {
    AtomicLong n = m.get(build);
    return n == null ? 0 : n.get();
  }

  /** Opens the current build and checks each sample group's page starts; returns the build read. */
  private static String read(String spec, Map<String, String> expected) throws Exception {
    try (Index index = Indexes.open(spec)) {
      Map<String, String> got = pageStarts(index);
      for (String g : GROUPS) {
        try (GroupPages pages = index.group(g)) {
          if (!pages.buildId().equals(index.buildId())) {
            throw new AssertionError("group " + g + " answered from build " + pages.buildId() + " in build "
                + index.buildId());
          }
        }
      }
      if (!got.equals(expected)) {
        throw new AssertionError("build " + index.buildId() + " has other page starts than the index had");
      }
      return index.buildId();
    }
  }

  private static Map<String, String> pageStarts(String spec, String build) throws Exception {
    try (Index index = build == null ? Indexes.open(spec) : Indexes.open(spec, build)) {
      return pageStarts(index);
    }
  }

  /** Page starts of a few pages of each sample group, both orders, as {@code pagemark lookup} prints them. */
  private static Map<String, String> pageStarts(Index index) throws Exception {
    Map<String, String> out = new java.util.TreeMap<>();
    for (String g : GROUPS) {
      try (GroupPages pages = index.group(g)) {
        long n = pages.pages(10);
        for (long p : new long[] {1, (n + 1) / 2, n}) {
          for (Order o : Order.values()) {
            out.put(g + " " + p + " " + o, LookupCommand.toJson(pages.pageStart(p, 10, o)));
          }
        }
      }
    }
    return out;
  }

  private static BackfillIT.Result backfill(DynamoDbLocal local, S3Proxy s3, String output, String buildId) {
    return BackfillIT.cli("backfill", "--table=" + TABLE, "--gsi=" + TrickyTable.BY_STRING, "--output=" + output,
        "--s3Endpoint=" + s3.endpoint(), "--dynamoEndpoint=" + local.endpoint(), "--progressSeconds=0",
        "--segments=2", "--buildId=" + buildId, "--keepBuilds=3");
  }
}
