package io.pagemark.wal;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WalTest {
  @TempDir Path root;

  @Test
  void thePositionNeverMovesBack() throws Exception {
    Wal wal = new Wal(root);
    assertThat(wal.advancePosition(Instant.ofEpochSecond(20)), is(true));
    assertThat(wal.advancePosition(Instant.ofEpochSecond(10)), is(false));
    assertThat(wal.advancePosition(Instant.ofEpochSecond(20)), is(false));
    assertThat(wal.position().orElseThrow(), is(Instant.ofEpochSecond(20)));
    assertThat(wal.advancePosition(Instant.ofEpochSecond(21)), is(true));
    assertThat(wal.position().orElseThrow(), is(Instant.ofEpochSecond(21)));
  }

  @Test
  void windowsFinishedOutOfOrderByManyThreadsLeaveTheLatestEnd() throws Exception {
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
        done.add(pool.submit(() -> new Wal(root).advancePosition(Instant.ofEpochSecond(end))));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(new Wal(root).position().orElseThrow(), is(Instant.ofEpochSecond(400)));
  }
}
