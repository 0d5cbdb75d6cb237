package io.pagemark.wal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalTest {
  @TempDir Path root;

  static ShardPosition at(String seq) {
    return new ShardPosition(seq, Instant.ofEpochSecond(Long.parseLong(seq.substring(Math.max(0, seq.length() - 6)))));
  }

  @Test
  void aShardPositionNeverMovesBackAndLeavesTheOtherShardsAlone() throws Exception {
    Wal wal = new Wal(root);
    assertThat(wal.shardPositions(), is(Map.of()));
    assertThat(wal.advanceShardPosition("shardId-000000000000", at("20")), is(true));
    assertThat(wal.advanceShardPosition("shardId-000000000000", at("10")), is(false));
    assertThat(wal.advanceShardPosition("shardId-000000000000", at("020")), is(false));
    assertThat(wal.advanceShardPosition("shardId-000000000001", at("5")), is(true));
    // sequence numbers are numbers beyond a long, not strings: 9 comes before 10, and a longer one is larger
    assertThat(wal.advanceShardPosition("shardId-000000000001", at("49590338271490256608559692538361571095921575989136588801")),
        is(true));
    assertThat(wal.advanceShardPosition("shardId-000000000001", at("9")), is(false));
    assertThat(wal.shardPositions(), is(Map.of(
        "shardId-000000000000", at("20"),
        "shardId-000000000001", at("49590338271490256608559692538361571095921575989136588801"))));
  }

  @Test
  void manyThreadsAdvancingShardsInAnyOrderLeaveEachShardsLargest() throws Exception {
    List<Integer> ends = new ArrayList<>();
    for (int i = 1; i <= 400; i++) {
      ends.add(i);
    }
    Collections.shuffle(ends, new java.util.Random(7));
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int end : ends) {
        // a fresh Wal per call, as each DoFn instance has its own
        done.add(pool.submit(() -> new Wal(root).advanceShardPosition("shard-" + end % 3, at(Integer.toString(end)))));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(new Wal(root).shardPositions(), is(Map.of("shard-0", at("399"), "shard-1", at("400"),
        "shard-2", at("398"))));
  }

  @Test
  void aDamagedPositionsFileIsNamedWithWhatToDo() throws Exception {
    Files.createDirectories(root.resolve(Wal.DIR));
    Files.writeString(root.resolve(Wal.DIR).resolve(Wal.POSITIONS), "shardId-1 12x 2026-01-01T00:00:00Z\n");
    IOException e = assertThrows(IOException.class, () -> new Wal(root).shardPositions());
    assertThat(e.getMessage(), containsString("POSITIONS"));
    assertThat(e.getMessage(), containsString("delete the file"));
  }

  @Test
  void sequenceNumbersCompareAsNumbers() {
    assertThat(ShardPosition.compareSequenceNumbers("9", "10") < 0, is(true));
    assertThat(ShardPosition.compareSequenceNumbers("0010", "10"), is(0));
    assertThat(at("10").covers("9"), is(true));
    assertThat(at("10").covers("10"), is(true));
    assertThat(at("10").covers("11"), is(false));
    assertThrows(IllegalArgumentException.class, () -> ShardPosition.compareSequenceNumbers("", "1"));
  }
}
