package io.pagemark.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pagemark.change.IndexChange;
import io.pagemark.change.Version;
import io.pagemark.commit.CommitBuild;
import io.pagemark.commit.IndexCommit;
import io.pagemark.wal.Wal;
import io.pagemark.wal.WalSegment;

import io.pagemark.format.BuildInfo;
import io.pagemark.format.GroupFileWriter;
import io.pagemark.format.GroupHeader;
import io.pagemark.format.GroupPaths;
import io.pagemark.format.IndexLayout;
import io.pagemark.format.IndexRecord;
import io.pagemark.format.KeyAttribute;
import io.pagemark.key.KeyType;
import io.pagemark.key.Json;
import io.pagemark.key.KeyValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark: commit {@code changes} stream changes (a third new items, a third sort key moves, a third removals) into
 * one group of {@code entries} entries, against the baseline of copying that group's file once, measured in the same
 * run on the same (warm) file. The group has the demo's shape: ISO timestamps as sort keys, comment ids as table keys
 * (52-byte records). Callable from a harness ({@link #run}) or on its own ({@link #main}):
 *
 * <pre>
 * java -cp ... io.pagemark.bench.CommitBenchmark [--entries=2300000] [--changes=1000] [--rounds=5] [--dir=/tmp/x]
 * </pre>
 */
public final class CommitBenchmark {
  private static final Instant BASE = Instant.parse("2024-01-01T00:00:00Z");
  private static final List<KeyAttribute> ATTRIBUTES = List.of(
      new KeyAttribute("SK", KeyType.S, KeyAttribute.INDEX_SORT_KEY),
      new KeyAttribute("PK", KeyType.S, KeyAttribute.TABLE_PARTITION_KEY));
  static final KeyValue GROUP = KeyValue.ofString("SKU-00000");

  private CommitBenchmark() {}

  /**
   * One benchmark run's figures (medians over the measured rounds).
   *
   * @param entries entries of the group
   * @param changes changes committed per round
   * @param fileBytes size of the group file
   * @param commitMillis median time of {@code pagemark commit} (read the WAL, merge, write and check the new group file,
   *     link, publish, discard)
   * @param copyMillis median time to copy the group file once (the baseline)
   */
  public record Result(long entries, int changes, long fileBytes, double commitMillis, double copyMillis) {
    /** Commit time over copy time. */
    public double ratio() {
      return commitMillis / copyMillis;
    }

    @Override
    public String toString() {
      return String.format("commit of %,d changes into a group of %,d entries (%,d MB): %.0f ms; copying the group"
              + " file once (baseline): %.0f ms; ratio %.2f", changes, entries, fileBytes >> 20, commitMillis,
          copyMillis, ratio());
    }
  }

  /** Builds the index under {@code dir} (emptied first), then measures {@code rounds} commits and copies. */
  public static Result run(Path dir, long entries, int changes, int rounds) throws IOException {
    if (Files.exists(dir)) {
      CommitBuild.deleteTree(dir);
    }
    Random r = new Random(42);
    writeBase(dir, entries);
    double[] commit = new double[rounds];
    double[] copy = new double[rounds];
    long bytes = 0;
    Wal wal = new Wal(dir);
    long nextItem = entries;
    for (int round = -1; round < rounds; round++) { // round -1 warms up
      IndexLayout layout = new IndexLayout(dir);
      Path file = GroupPaths.resolve(layout.build(layout.currentBuildId()), GROUP);
      bytes = Files.size(file);
      Path copyTo = dir.resolve("copy.pmi");
      long t0 = System.nanoTime();
      Files.copy(file, copyTo, StandardCopyOption.REPLACE_EXISTING);
      long t1 = System.nanoTime();
      Files.delete(copyTo);

      List<IndexChange> batch = new ArrayList<>();
      long micros = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
      for (int i = 0; i < changes; i++) {
        Version v = new Version(micros + i, "");
        switch (i % 3) {
          case 0: {
            KeyValue pk = KeyValue.ofString(comment(nextItem++));
            batch.add(new IndexChange(GROUP, List.of(pk), v, null, List.of(sortKey(r), pk)));
            break;
          }
          case 1: {
            long item = (long) (r.nextDouble() * entries);
            KeyValue pk = KeyValue.ofString(comment(item));
            batch.add(new IndexChange(GROUP, List.of(pk), v, List.of(time(item), pk), List.of(sortKey(r), pk)));
            break;
          }
          default: {
            long item = (long) (r.nextDouble() * entries);
            KeyValue pk = KeyValue.ofString(comment(item));
            batch.add(new IndexChange(GROUP, List.of(pk), v, List.of(time(item), pk), null));
          }
        }
      }
      new WalSegment("PK2", GROUP, ATTRIBUTES, batch).write(wal.groupDir(GROUP), Wal.newSegmentName());
      long t2 = System.nanoTime();
      IndexCommit.of(dir).withKeepBuilds(2).run();
      long t3 = System.nanoTime();
      if (round >= 0) {
        copy[round] = (t1 - t0) / 1e6;
        commit[round] = (t3 - t2) / 1e6;
      }
    }
    return new Result(entries, changes, bytes, median(commit), median(copy));
  }

  static KeyValue sortKey(Random r) {
    return KeyValue.ofString(BASE.plusSeconds((long) (r.nextDouble() * 90_000_000L)).toString());
  }

  /** Item {@code i}'s sort key in the base: evenly spread, so that the base is in order by construction. */
  static KeyValue time(long i) {
    return KeyValue.ofString(BASE.plusSeconds(i * 30).toString());
  }

  static String comment(long i) {
    return String.format("comment-%08d", i);
  }

  static void writeBase(Path dir, long entries) throws IOException {
    String id = "bench-base";
    long now = System.currentTimeMillis();
    IndexLayout layout = new IndexLayout(dir);
    Path partial = layout.partialBuild(id);
    int width = GroupFileWriter.widthFor(List.of(time(entries), KeyValue.ofString(comment(entries))));
    GroupHeader done;
    try (GroupFileWriter w = new GroupFileWriter(GroupPaths.resolve(partial, GROUP),
        new GroupHeader("PK2", GROUP, ATTRIBUTES, width, 0, now, id, new byte[32]))) {
      for (long i = 0; i < entries; i++) {
        w.append(IndexRecord.unique(List.of(time(i), KeyValue.ofString(comment(i)))));
      }
      done = w.finish();
    }
    String file = GroupPaths.relativePath(GROUP);
    ObjectNode line = Json.object();
    line.set("group", Json.of(GROUP));
    line.put("file", file).put("count", entries).put("recordWidth", width)
        .put("sha256", HexFormat.of().formatHex(done.recordsSha256())).put("tieRuns", 0).put("tieRunsUnresolved", 0);
    Files.writeString(partial.resolve(IndexLayout.MANIFEST), Json.write(line) + "\n", StandardCharsets.UTF_8);
    BuildInfo info = new BuildInfo(1, id, now - TimeUnit.HOURS.toMillis(1), "comments", "byProduct", "PK2", "S",
        List.of(new BuildInfo.Attribute("SK", "S", List.of("indexSortKey")),
            new BuildInfo.Attribute("PK", "S", List.of("tablePartitionKey"))),
        new BuildInfo.Counts(entries, entries, 1, 0, 0, 0, 0, 0));
    Files.writeString(partial.resolve(IndexLayout.BUILD_INFO), info.toJson(), StandardCharsets.UTF_8);
    layout.publish(id);
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  public static void main(String[] args) throws IOException {
    long entries = 2_300_000;
    int changes = 1000;
    int rounds = 5;
    Path dir = Path.of(System.getProperty("java.io.tmpdir"), "pagemark-commit-bench");
    for (String a : args) {
      String v = a.substring(a.indexOf('=') + 1);
      if (a.startsWith("--entries=")) {
        entries = Long.parseLong(v);
      } else if (a.startsWith("--changes=")) {
        changes = Integer.parseInt(v);
      } else if (a.startsWith("--rounds=")) {
        rounds = Integer.parseInt(v);
      } else if (a.startsWith("--dir=")) {
        dir = Path.of(v);
      } else {
        System.err.println("usage: CommitBenchmark [--entries=2300000] [--changes=1000] [--rounds=5] [--dir=DIR]");
        System.exit(2);
      }
    }
    Result r = run(dir, entries, changes, rounds);
    System.out.println(r);
    CommitBuild.deleteTree(dir);
  }
}
