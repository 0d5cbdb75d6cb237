package io.pagemark.pipelines.catchup;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;

import io.pagemark.pipelines.Main;
import io.pagemark.wal.CatchUpWatermark;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code pagemark catch-up}'s usage errors (exit code 2), decided before any DynamoDB call; and its watermark. */
class CatchUpCommandTest {
  record Result(int code, String out, String err) {}

  static Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> argv = new ArrayList<>(List.of("catch-up", "--table=t", "--gsi=g", "--bucketIndex=b"));
    argv.addAll(List.of(args));
    int code = Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void theFirstRunNeedsSince(@TempDir Path dir) {
    Result r = run("--index=" + dir);
    assertThat(r.err(), r.code(), is(2));
    assertThat(r.err(), containsString("give --since=INSTANT"));
  }

  @Test
  void badOptionsAreUsageErrorsThatSayWhatToDo(@TempDir Path dir) {
    String since = "--since=2026-11-23T00:00:00Z";
    assertThat(run("--index=redis://127.0.0.1:6379", since).err(), containsString("a Redis index has no write-ahead"));
    assertThat(run("--index=s3://bucket/prefix", since).err(), containsString("needs --wal=DIR"));
    assertThat(run("--index=" + dir, "--wal=" + dir, since).err(), containsString("--wal goes with"));
    assertThat(run("--index=" + dir, "--bucketMinutes=7", since).err(), containsString("divide a day"));
    assertThat(run("--index=" + dir, "--since=yesterday").err(), containsString("ISO-8601"));
    assertThat(run("--index=" + dir, "--overlapMinutes=-1", since).err(), containsString("--overlapMinutes"));
    assertThat(run("--index=" + dir, "--since=2999-01-01T00:00:00Z").err(), containsString("in the future"));
    for (String[] bad : List.of(new String[] {"--index=redis://127.0.0.1:6379", since},
        new String[] {"--index=" + dir, "--since=yesterday"}, new String[] {"--index=" + dir, "--bucketMinutes=7",
            since})) {
      assertThat(String.join(" ", bad), run(bad).code(), is(2));
    }
  }

  @Test
  void theWatermarkOnlyMovesForward(@TempDir Path dir) throws Exception {
    CatchUpWatermark w = new CatchUpWatermark(dir);
    assertThat(w.read().isPresent(), is(false));
    Instant t = Instant.parse("2026-11-23T12:00:00Z");
    assertThat(w.advance(t), is(true));
    assertThat(w.advance(t.minusSeconds(1)), is(false));
    assertThat(w.advance(t), is(false));
    assertThat(w.read().orElseThrow(), is(t));
    assertThat(w.advance(t.plusMillis(1)), is(true));
    assertThat(w.read().orElseThrow(), is(t.plusMillis(1)));
    assertThat(w.file(), is(dir.resolve("wal").resolve("CATCHUP")));
  }
}
