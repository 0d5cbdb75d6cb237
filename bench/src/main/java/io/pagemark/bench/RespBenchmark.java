package io.pagemark.bench;

import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.key.KeyValue;
import io.pagemark.testing.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
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
  /**
   * One command on both servers, medians of the rounds: requests per second, requests per CPU-second of the server
   * ({@code utime + stime} of its process over the run), and the client's CPU-seconds per wall-second (1.0 = a whole
   * core: then the client, not the server, sets the rate).
   */
  public record Throughput(String command, int pipeline, int clientThreads, double respRps, double redisRps,
      double respPerCpu, double redisPerCpu, double respClientLoad, double redisClientLoad,
      double respServerLoad, double redisServerLoad) {}

  /** One redis-benchmark run: requests per second, and CPU-seconds of the server and the client over it. */
  record Sample(double rps, double seconds, double serverCpu, double clientCpu) {}

  /**
   * One run's figures.
   *
   * @param respRss the resp process's resident set after loading Redis from it (every member served once)
   * @param respPeakRss the resp process's peak resident set over the whole run ({@code VmHWM})
   * @param respAnon the anonymous part of {@code respRss} (heap, stacks; not file pages)
   * @param redisBytes growth of Redis's {@code used_memory} while the members were added
   */
  public record Result(long members, long fileBytes, List<Throughput> throughput, long respRss, long respPeakRss,
      long respAnon, long redisBytes, int changes, double commitMillis, double copyMillis, double durableCopyMillis,
      String redisVersion) {}

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
      long redisPid = Long.parseLong(d.info("server").lines().filter(l -> l.startsWith("process_id:")).findFirst()
          .orElseThrow().substring("process_id:".length()).trim());
      List<Throughput> throughput = new ArrayList<>();
      // requests 0: the commit figure only
      List<String[]> commands = requests == 0 ? List.of()
          : List.of(new String[] {"ZRANGE", KEY, rank, rank}, new String[] {"ZCARD", KEY});
      // {pipeline, client threads}: redis-benchmark's own thread is a whole core without pipelining, so the
      // last run gives it two
      int[][] runs = {{1, 1}, {16, 1}, {1, 2}};
      for (String[] command : commands) {
        for (int[] run : runs) {
          int pipeline = run[0];
          int threads = run[1];
          int n = pipeline == 1 ? requests : requests * 4;
          // one untimed run each first: the server's JIT compiles this command's path, Redis warms its caches
          redisBenchmark(resp.port(), resp.pid(), command, pipeline, threads, n / 2);
          redisBenchmark(redis.port(), redisPid, command, pipeline, threads, n / 2);
          Sample[] a = new Sample[rounds];
          Sample[] b = new Sample[rounds];
          for (int i = 0; i < rounds; i++) {
            // alternate which server goes first, so that neither always meets the same state of a shared machine
            if (i % 2 == 0) {
              b[i] = redisBenchmark(redis.port(), redisPid, command, pipeline, threads, n);
              a[i] = redisBenchmark(resp.port(), resp.pid(), command, pipeline, threads, n);
            } else {
              a[i] = redisBenchmark(resp.port(), resp.pid(), command, pipeline, threads, n);
              b[i] = redisBenchmark(redis.port(), redisPid, command, pipeline, threads, n);
            }
          }
          Throughput t = new Throughput(String.join(" ", command), pipeline, threads, median(a, x -> x.rps()),
              median(b, x -> x.rps()), median(a, x -> n / x.serverCpu()), median(b, x -> n / x.serverCpu()),
              median(a, x -> x.clientCpu() / x.seconds()), median(b, x -> x.clientCpu() / x.seconds()),
              median(a, x -> x.serverCpu() / x.seconds()), median(b, x -> x.serverCpu() / x.seconds()));
          progress.printf("  %s -P %d --threads %d: resp %,.0f/s (%,.0f per server CPU-s, server %.2f cores,"
              + " client %.2f), redis %,.0f/s (%,.0f per server CPU-s, server %.2f cores, client %.2f)%n",
              t.command(), pipeline, threads, t.respRps(), t.respPerCpu(), t.respServerLoad(), t.respClientLoad(),
              t.redisRps(), t.redisPerCpu(), t.redisServerLoad(), t.redisClientLoad());
          throughput.add(t);
        }
      }
      progress.printf("  pagemark resp after the throughput rounds: VmRSS %,d kB, VmHWM %,d kB%n",
          resp.memory("VmRSS") >> 10, resp.memory("VmHWM") >> 10);
      double[] commit = new double[commitRounds];
      double[] copy = new double[commitRounds];
      double[] durable = new double[commitRounds];
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
        long t4 = System.nanoTime();
        durableCopy(current, copyTo);
        long t5 = System.nanoTime();
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
          durable[round] = (t5 - t4) / 1e6;
          commit[round] = (t3 - t2) / 1e6;
        }
      }
      long peak = resp.memory("VmHWM");
      progress.printf("  PM.COMMIT %.1f ms (median), copy %.1f ms, durable copy %.1f ms; pagemark resp VmRSS %,d kB,"
          + " VmHWM %,d kB%n", CommitBenchmark.median(commit), CommitBenchmark.median(copy),
          CommitBenchmark.median(durable), resp.memory("VmRSS") >> 10, peak >> 10);
      return new Result(members, fileBytes, throughput, respRss, peak, respAnon, redisBytes, changes,
          CommitBenchmark.median(commit), CommitBenchmark.median(copy), CommitBenchmark.median(durable), version);
    }
  }

  /**
   * The least a durable writer of a group file does: copies it through a 1 MiB buffer while digesting the body
   * (every byte after the header) with SHA-256, as the format requires, then forces it to disk.
   */
  static void durableCopy(Path from, Path to) throws IOException {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    try (FileChannel in = FileChannel.open(from, StandardOpenOption.READ);
        FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1 << 20);
      in.read(b.limit(16), 0);
      long headerLength = b.getInt(12); // H, at offset 12 in both versions of the format
      b.clear();
      long position = 0;
      while (in.read(b) > 0 || b.position() > 0) {
        b.flip();
        int skip = (int) Math.max(0, Math.min(b.remaining(), headerLength - position));
        sha.update(b.array(), skip, b.remaining() - skip);
        position += b.remaining();
        while (b.hasRemaining()) {
          out.write(b);
        }
        b.clear();
      }
      out.force(true);
    }
    sha.digest();
  }

  private static <T> double median(T[] samples, java.util.function.ToDoubleFunction<T> f) {
    double[] v = new double[samples.length];
    for (int i = 0; i < v.length; i++) {
      v[i] = f.applyAsDouble(samples[i]);
    }
    return CommitBenchmark.median(v);
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
   * Stages {@code changes} members for a commit: half ZADD of new items (random sort keys inside the group's span,
 * some equal to an existing one), half ZREM of existing
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
        // a datetime inside the group's span: beyond it, the span of the sort key's codec may need another byte,
        // and the commit then rewrites the file in full (as for any change the base's codecs do not hold)
        KeyValue sortKey = KeyValue.ofString(java.time.Instant.parse(CommitBenchmark.time(0).text())
            .plusSeconds(Math.floorMod(random.nextLong(), members * 30)).toString());
        replies.add(p.zadd(KEY, 0, member(sortKey, pk)));
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

  /**
   * One redis-benchmark run: 50 clients, {@code n} requests, {@code threads} client threads; returns its requests
   * per second with the CPU time the server ({@code serverPid}) and the client spent on it. The client runs under a
   * shell that reports its children's CPU time ({@code /proc/$$/stat}'s cutime and cstime) once it has waited for it.
   */
  static Sample redisBenchmark(int port, long serverPid, String[] command, int pipeline, int threads, int n)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("sh", "-c",
        "redis-benchmark \"$@\"; rc=$?; echo; echo \"client-stat: $(cat /proc/$$/stat)\"; exit $rc", "sh",
        "-h", "127.0.0.1", "-p", Integer.toString(port), "-c", "50", "-n", Integer.toString(n), "-P",
        Integer.toString(pipeline), "--csv"));
    if (threads > 1) {
      cmd.addAll(List.of("--threads", Integer.toString(threads)));
    }
    cmd.addAll(List.of(command));
    if (!onPath("redis-benchmark")) {
      throw new IOException("redis-benchmark is not installed (Debian package redis-tools, which redis-server"
          + " brings; bin/ensure-redis installs it)");
    }
    double serverBefore = ProcStatus.cpuSeconds(serverPid);
    long started = System.nanoTime();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        lines.add(line);
      }
    }
    if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException("redis-benchmark failed: " + String.join("\n", lines));
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    // at least one clock tick: a run shorter than the clock's resolution is not worth a division by zero
    double serverCpu = Math.max(1.0 / ProcStatus.CLOCK_TICKS, ProcStatus.cpuSeconds(serverPid) - serverBefore);
    double rps = -1;
    double clientCpu = -1;
    for (String line : lines) {
      String[] f = line.split("\",\"");
      if (f.length >= 2 && f[0].startsWith("\"" + command[0])) {
        rps = Double.parseDouble(f[1]);
      } else if (line.startsWith("client-stat: ")) {
        String[] stat = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
        // after the name: state is field 3, so cutime and cstime (fields 16 and 17) are at 13 and 14
        clientCpu = (Long.parseLong(stat[13]) + Long.parseLong(stat[14])) / (double) ProcStatus.CLOCK_TICKS;
      }
    }
    if (rps < 0 || clientCpu < 0) {
      throw new IllegalStateException("redis-benchmark printed no result: " + String.join("\n", lines));
    }
    return new Sample(rps, seconds, serverCpu, clientCpu);
  }

  private static boolean onPath(String tool) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
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
