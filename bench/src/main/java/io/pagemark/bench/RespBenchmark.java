package io.pagemark.bench;

import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyValue;
import io.pagemark.testing.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.util.SafeEncoder;

/**
 * Benchmark: {@code pagemark resp} against a real {@code redis-server} holding the same group, on the same machine in
 * the same run. One group of {@code members} demo-like entries ({@link CommitBenchmark}'s shape) is written as a file
 * index and served by {@code pagemark resp} in a JVM of its own (the launcher's flags); redis-server gets the very
 * members resp returns ({@code ZRANGE} in chunks), each with its rank as score. Then:
 *
 * <ul>
 *   <li>throughput: {@code redis-benchmark -c 50} with and without {@code -P 16}, {@code ZRANGE key r r} at a fixed
 *       deep rank and {@code ZCARD key}, each server in turn for {@code rounds} rounds, medians;
 *   <li>memory: the resp process's resident set (after it has served every member once) against Redis's
 *       {@code used_memory} growth for the same members;
 *   <li>commit: {@code PM.COMMIT} of {@code changes} members staged with ZADD (new items) and ZREM (existing ones),
 *       timed by the client, against copying the group file once, median of {@code commitRounds} after a warm-up.
 * </ul>
 */
public final class RespBenchmark {
  /** Requests per second of one command on both servers (medians of the rounds). */
  public record Throughput(String command, int pipeline, double respRps, double redisRps) {}

  /**
   * One run's figures.
   *
   * @param respRss the resp process's resident set after loading Redis from it (every member served once)
   * @param respPeakRss the resp process's peak resident set over the whole run ({@code VmHWM})
   * @param respAnon the anonymous part of {@code respRss} (heap, stacks; not file pages)
   * @param redisBytes growth of Redis's {@code used_memory} while the members were added
   */
  public record Result(long members, long fileBytes, List<Throughput> throughput, long respRss, long respPeakRss,
      long respAnon, long redisBytes, int changes, double commitMillis, double copyMillis, String redisVersion) {}

  private static final String KEY = CommitBenchmark.GROUP.text();

  private RespBenchmark() {}

  public static Result run(Path dir, Path repo, long members, int requests, int rounds, int changes,
      int commitRounds, List<String> extraArgs, PrintStream progress) throws Exception {
    Files.createDirectories(dir);
    Path index = dir.resolve("index");
    progress.printf("bench: writing a file index of one group of %,d members ...%n", members);
    CommitBenchmark.writeBase(index, members);
    Path file = GroupPaths.resolve(new IndexLayout(index).build("bench-base"), CommitBenchmark.GROUP);
    long fileBytes = Files.size(file);
    List<String> args = new ArrayList<>(List.of("--index=" + index, "--wal=" + index));
    args.addAll(extraArgs);
    try (RespProcess resp = RespProcess.start(repo, args, dir.resolve("resp.log"));
        RedisServer redis = RedisServer.start();
        Jedis r = new Jedis("127.0.0.1", resp.port(), 60_000);
        Jedis d = redis.client()) {
      progress.printf("bench: loading the same %,d members into redis-server (read from pagemark resp) ...%n",
          members);
      long before = usedMemory(d);
      load(r, d, members);
      long redisBytes = usedMemory(d) - before;
      long respRss = resp.memory("VmRSS");
      long respAnon = resp.memory("RssAnon");
      progress.printf("  pagemark resp after serving every member once: VmRSS %,d kB (anonymous %,d kB), VmHWM %,d kB;"
          + " redis-server used_memory grew by %,d kB%n", respRss >> 10, respAnon >> 10, resp.memory("VmHWM") >> 10,
          redisBytes >> 10);
      String version = d.info("server").lines().filter(l -> l.startsWith("redis_version:")).findFirst()
          .map(l -> l.substring("redis_version:".length()).trim()).orElse("?");

      String rank = Long.toString(members * 3 / 4);
      if (!r.zrange(KEY, members * 3 / 4, members * 3 / 4).equals(d.zrange(KEY, members * 3 / 4, members * 3 / 4))
          || r.zcard(KEY) != d.zcard(KEY)) {
        throw new IllegalStateException("pagemark resp and redis-server answer ZRANGE/ZCARD differently");
      }
      List<Throughput> throughput = new ArrayList<>();
      // requests 0: the commit figure only
      List<String[]> commands = requests == 0 ? List.of()
          : List.of(new String[] {"ZRANGE", KEY, rank, rank}, new String[] {"ZCARD", KEY});
      for (String[] command : commands) {
        for (int pipeline : new int[] {1, 16}) {
          int n = pipeline == 1 ? requests : requests * 4;
          // one untimed run each first: the server's JIT compiles this command's path, Redis warms its caches
          redisBenchmark(resp.port(), command, pipeline, n / 2);
          redisBenchmark(redis.port(), command, pipeline, n / 2);
          double[] a = new double[rounds];
          double[] b = new double[rounds];
          for (int i = 0; i < rounds; i++) {
            // alternate which server goes first, so that neither always meets the same state of a shared machine
            if (i % 2 == 0) {
              b[i] = redisBenchmark(redis.port(), command, pipeline, n);
              a[i] = redisBenchmark(resp.port(), command, pipeline, n);
            } else {
              a[i] = redisBenchmark(resp.port(), command, pipeline, n);
              b[i] = redisBenchmark(redis.port(), command, pipeline, n);
            }
          }
          Throughput t = new Throughput(String.join(" ", command), pipeline, CommitBenchmark.median(a),
              CommitBenchmark.median(b));
          progress.printf("  %s -P %d: resp %,.0f/s, redis %,.0f/s%n", t.command(), pipeline, t.respRps(),
              t.redisRps());
          throughput.add(t);
        }
      }
      progress.printf("  pagemark resp after the throughput rounds: VmRSS %,d kB, VmHWM %,d kB%n",
          resp.memory("VmRSS") >> 10, resp.memory("VmHWM") >> 10);
      double[] commit = new double[commitRounds];
      double[] copy = new double[commitRounds];
      long nextItem = members;
      Random random = new Random(7);
      for (int round = -1; round < commitRounds; round++) {
        Path current = GroupPaths.resolve(new IndexLayout(index).build(new IndexLayout(index).currentBuildId()),
            CommitBenchmark.GROUP);
        Path copyTo = dir.resolve("copy.pmi");
        awaitPruned(index);
        long t0 = System.nanoTime();
        Files.copy(current, copyTo, StandardCopyOption.REPLACE_EXISTING);
        long t1 = System.nanoTime();
        Files.delete(copyTo);
        nextItem = stage(r, members, changes, round + 1, commitRounds + 1, nextItem, random);
        long t2 = System.nanoTime();
        Object reply = r.sendCommand(() -> SafeEncoder.encode("PM.COMMIT"));
        long t3 = System.nanoTime();
        if (!(reply instanceof List) || ((List<?>) reply).size() != 14) {
          throw new IllegalStateException("PM.COMMIT replied " + reply);
        }
        if (round >= 0) {
          copy[round] = (t1 - t0) / 1e6;
          commit[round] = (t3 - t2) / 1e6;
        }
      }
      long peak = resp.memory("VmHWM");
      progress.printf("  PM.COMMIT %.0f ms (median), copy %.0f ms; pagemark resp VmRSS %,d kB, VmHWM %,d kB%n",
          CommitBenchmark.median(commit), CommitBenchmark.median(copy), resp.memory("VmRSS") >> 10, peak >> 10);
      return new Result(members, fileBytes, throughput, respRss, peak, respAnon, redisBytes, changes,
          CommitBenchmark.median(commit), CommitBenchmark.median(copy), version);
    }
  }

  /**
   * Waits until the server has removed the builds beyond the three it keeps: it does so after answering
   * {@code PM.COMMIT}, and the copy (the baseline) must not share the disk with that.
   */
  private static void awaitPruned(Path index) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      long published;
      try (var builds = Files.list(index.resolve(IndexLayout.BUILDS))) {
        published = builds.filter(p -> !p.getFileName().toString().startsWith(".")).count();
      }
      if (published <= 3) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("pagemark resp still keeps " + published + " builds a minute after a commit");
      }
      Thread.sleep(5);
    }
  }

  /** Copies every member from resp to Redis, with its rank as score, in chunks. */
  private static void load(Jedis resp, Jedis redis, long members) {
    int chunk = 10_000;
    for (long from = 0; from < members; from += chunk) {
      long to = Math.min(members, from + chunk) - 1;
      List<String> got = resp.zrange(KEY, from, to);
      if (got.size() != to - from + 1) {
        throw new IllegalStateException("pagemark resp returned " + got.size() + " members for ranks " + from
            + ".." + to);
      }
      Pipeline p = redis.pipelined();
      for (int i = 0; i < got.size(); i++) {
        p.zadd(KEY, from + i, got.get(i));
      }
      p.sync();
    }
    if (redis.zcard(KEY) != members) {
      throw new IllegalStateException("redis-server holds " + redis.zcard(KEY) + " members, not " + members);
    }
  }

  /**
   * Stages {@code changes} members for a commit: half ZADD of new items (random sort keys), half ZREM of existing
   * items (a different stretch of the group each round). Returns the next new item's number.
   */
  private static long stage(Jedis resp, long members, int changes, int round, int rounds, long nextItem,
      Random random) {
    Pipeline p = resp.pipelined();
    List<redis.clients.jedis.Response<Long>> replies = new ArrayList<>();
    long stride = Math.max(1, members / ((long) rounds * changes));
    for (int i = 0; i < changes; i++) {
      if (i % 2 == 0) {
        KeyValue pk = KeyValue.ofString(CommitBenchmark.comment(nextItem++));
        replies.add(p.zadd(KEY, 0, member(CommitBenchmark.sortKey(random), pk)));
      } else {
        long item = ((long) round * changes + i) * stride % members;
        replies.add(p.zrem(KEY, member(CommitBenchmark.time(item), KeyValue.ofString(CommitBenchmark.comment(item)))));
      }
    }
    p.sync();
    for (redis.clients.jedis.Response<Long> x : replies) {
      x.get(); // throws if the server refused a change
    }
    return nextItem;
  }

  private static String member(KeyValue sortKey, KeyValue pk) {
    return "{\"PK2\":" + CommitBenchmark.GROUP + ",\"SK\":" + sortKey + ",\"PK\":" + pk + "}";
  }

  /** One redis-benchmark run: 50 clients, {@code n} requests; returns its requests per second. */
  static double redisBenchmark(int port, String[] command, int pipeline, int n)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("redis-benchmark", "-h", "127.0.0.1", "-p", Integer.toString(port),
        "-c", "50", "-n", Integer.toString(n), "-P", Integer.toString(pipeline), "--csv"));
    cmd.addAll(List.of(command));
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException("redis-benchmark is not installed (Debian package redis-tools, which redis-server"
          + " brings; bin/ensure-redis installs it)", e);
    }
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("redis-benchmark failed: " + String.join("\n", lines));
    }
    for (String line : lines) {
      String[] f = line.split("\",\"");
      if (f.length >= 2 && f[0].startsWith("\"" + command[0])) {
        return Double.parseDouble(f[1]);
      }
    }
    throw new IllegalStateException("redis-benchmark printed no result: " + String.join("\n", lines));
  }

  private static long usedMemory(Jedis j) {
    for (String line : j.info("memory").split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("INFO memory has no used_memory");
  }

  /**
   * {@code java -cp ... io.pagemark.bench.RespBenchmark [--members=2300000] [--requests=300000] [--rounds=5]
   * [--commitRounds=3] [--threads=N] [--dir=DIR]} from the repository's root; {@code --requests=0} measures the
   * commit only (and memory), without redis-benchmark.
   */
  public static void main(String[] args) throws Exception {
    long members = 2_300_000;
    int requests = 300_000;
    int rounds = 5;
    int commitRounds = 3;
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "pagemark-resp-bench");
    List<String> extra = new ArrayList<>();
    for (String a : args) {
      String v = a.substring(a.indexOf('=') + 1);
      if (a.startsWith("--members=")) {
        members = Long.parseLong(v);
      } else if (a.startsWith("--requests=")) {
        requests = Integer.parseInt(v);
      } else if (a.startsWith("--rounds=")) {
        rounds = Integer.parseInt(v);
      } else if (a.startsWith("--dir=")) {
        dir = Path.of(v);
      } else if (a.startsWith("--commitRounds=")) {
        commitRounds = Integer.parseInt(v);
      } else if (a.startsWith("--threads=")) {
        extra.add(a);
      } else {
        System.err.println("usage: RespBenchmark [--members=N] [--requests=N (0: the commit only)] [--rounds=N]"
            + " [--commitRounds=N] [--dir=DIR] [--threads=N]");
        System.exit(2);
      }
    }
    if (Files.exists(dir)) {
      io.pagemark.commit.CommitBuild.deleteTree(dir);
    }
    Result r = run(dir, Path.of(""), members, requests, rounds, 1000, commitRounds, extra, System.out);
    System.out.println(r);
    io.pagemark.commit.CommitBuild.deleteTree(dir);
  }
}
