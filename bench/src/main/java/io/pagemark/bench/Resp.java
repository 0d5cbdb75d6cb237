package io.pagemark.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Figure 7, {@code pagemark resp} against real Redis ({@link RespBenchmark}): requests per second of
 * {@code ZRANGE key r r} and {@code ZCARD key} under {@code redis-benchmark -c 50}, without and with {@code -P 16}
 * and with two client threads, and the requests each server serves per CPU-second of its own (the client takes a
 * core of two, so requests per second alone mostly measure the client); the server's resident memory against
 * Redis's {@code used_memory} for the same members; and {@code PM.COMMIT} of 1,000 staged changes against copying
 * the group file, and against a durable copy (copy, SHA-256 of the body, fsync). The goals: at least 1.2x
 * Redis's requests per second, at most 0.25x its memory, a commit within 3x the copy.
 */
final class Resp implements Bench {
  /** Sizes of one run: members of the group, requests per redis-benchmark run (x4 pipelined), rounds. */
  record Size(long members, int requests, int rounds, int changes, int commitRounds) {}

  static Size size(Sizes sizes) {
    return sizes.mode().equals("quick") ? new Size(100_000, 50_000, 3, 1_000, 2)
        : new Size(2_300_000, 300_000, 5, 1_000, 3);
  }

  static String throughputName(String command, int pipeline, long members) {
    return String.format("pagemark resp requests/s, %s, 50 clients, %s, a group of %,d, vs redis-server",
        command, pipeline == 1 ? "no pipelining" : "-P " + pipeline, members);
  }

  static String threadsName(String command, long members) {
    return String.format("pagemark resp requests/s, %s, 50 clients, no pipelining, redis-benchmark --threads 2,"
        + " a group of %,d, vs redis-server", command, members);
  }

  static String perCpuName(String command, int pipeline, long members) {
    return String.format("pagemark resp requests per server CPU-second, %s, 50 clients, %s, a group of %,d, vs"
        + " redis-server", command, pipeline == 1 ? "no pipelining" : "-P " + pipeline, members);
  }

  static String durableCommitName(Size s) {
    return String.format("PM.COMMIT of %,d changes into a group of %,d through pagemark resp, vs a durable copy of"
        + " the group file (copy, SHA-256 of the body, fsync)", s.changes(), s.members());
  }

  /** The figure's name for one throughput run. */
  private static String name(RespBenchmark.Throughput t, long members) {
    String command = t.command().startsWith("ZRANGE") ? "ZRANGE key r r" : "ZCARD key";
    return t.clientThreads() > 1 ? threadsName(command, members) : throughputName(command, t.pipeline(), members);
  }

  static String memoryName(long members) {
    return String.format("pagemark resp resident memory, a group of %,d members, vs redis-server's used_memory",
        members);
  }

  static String commitName(Size s) {
    return String.format("PM.COMMIT of %,d changes into a group of %,d through pagemark resp, vs copying the group"
        + " file once", s.changes(), s.members());
  }

  @Override
  public String id() {
    return "resp";
  }

  @Override
  public List<String> figures(Sizes sizes) {
    Size s = size(sizes);
    List<String> names = new ArrayList<>();
    for (String c : List.of("ZRANGE key r r", "ZCARD key")) {
      for (int p : new int[] {1, 16}) {
        names.add(throughputName(c, p, s.members()));
        names.add(perCpuName(c, p, s.members()));
      }
      names.add(threadsName(c, s.members()));
    }
    names.add(memoryName(s.members()));
    names.add(commitName(s));
    names.add(durableCommitName(s));
    return names;
  }

  @Override
  public void run(Sizes sizes, Context context) throws Exception {
    Size s = size(sizes);
    RespBenchmark.Result r = RespBenchmark.run(context.dir("resp"), Path.of(""), s.members(), s.requests(),
        s.rounds(), s.changes(), s.commitRounds(), List.of(), context.progress());
    for (RespBenchmark.Throughput t : r.throughput()) {
      String run = String.format("redis-benchmark -c 50 -n %,d -P %d%s %s (r = 3/4 of the group); median of %d"
          + " rounds, the servers taking turns; pagemark resp with its launcher's JVM flags and default event loops",
          t.pipeline() == 1 ? s.requests() : s.requests() * 4, t.pipeline(),
          t.clientThreads() > 1 ? " --threads " + t.clientThreads() : "", t.command(), s.rounds());
      context.report(new Figure(name(t, s.members()), t.respRps(), "requests/s", "redis-server "
          + r.redisVersion() + " holding the same members, same redis-benchmark runs in turn", t.redisRps(),
          "requests/s", String.format("%s; CPU in cores (CPU-seconds per second) during the runs: resp %.2f, its"
              + " client %.2f; redis %.2f, its client %.2f", run, t.respServerLoad(), t.respClientLoad(),
              t.redisServerLoad(), t.redisClientLoad())));
      if (t.clientThreads() == 1) {
        String command = t.command().startsWith("ZRANGE") ? "ZRANGE key r r" : "ZCARD key";
        context.report(new Figure(perCpuName(command, t.pipeline(), s.members()), t.respPerCpu(),
            "requests/CPU-s", "redis-server " + r.redisVersion() + ", the same runs", t.redisPerCpu(),
            "requests/CPU-s", "requests of a run / (utime + stime) of the server process over it (/proc/PID/stat);"
                + " higher is better; " + run));
      }
    }
    context.report(new Figure(memoryName(s.members()), r.respRss(), "bytes",
        "redis-server's used_memory growth for the same members (scores = ranks)", r.redisBytes(), "bytes",
        String.format("VmRSS of the pagemark resp process after it served every member once (%,d bytes of it"
            + " anonymous: heap, stacks, code; the rest mapped files such as the JVM's class data), peak VmHWM"
            + " over the run %,d bytes; group file %,d bytes on disk (in the page cache, not in the process)",
            r.respAnon(), r.respPeakRss(), r.fileBytes())));
    context.report(new Figure(commitName(s), r.commitMillis(), "ms", "Files.copy of the group file once (same"
        + " rounds, warm page cache)", r.copyMillis(), "ms", String.format("%,d members staged per round (half"
            + " ZADD of new items, half ZREM of existing ones) through the write-ahead log, then PM.COMMIT timed by"
            + " the client (merge, write and fsync the new group file, publish, serve); median of %d rounds after a"
            + " warm-up", r.changes(), s.commitRounds())));
    context.report(new Figure(durableCommitName(s), r.commitMillis(), "ms", "the group file copied through a 1 MiB"
        + " buffer while SHA-256 digests its body, then fsync (what any durable writer of the format does; same"
        + " rounds)", r.durableCopyMillis(), "ms", "as the figure before; the commit splices the group file (copies"
        + " the encoded records it keeps) when the base's codecs hold the changes (docs/format-v2.md)"));
  }
}
