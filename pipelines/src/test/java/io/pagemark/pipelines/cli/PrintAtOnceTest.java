package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A command's summary line reaches its stream in one write ({@link Cli#printAtOnce}), so that a log line another
 * thread writes to the same terminal or file meanwhile cannot land inside it (a stream's "stopped after" line once
 * came out cut in two by a Flink shutdown warning).
 */
class PrintAtOnceTest {
  private static final String FORMAT = "pagemark stream: %s after %.0f s; %,d records read, %s%n";
  private static final Object[] ARGS = {"stopped", 8.0, 531, "lag to durable p50 ~540 ms p95 ~13781 ms"};

  /** Every write the stream makes, each as the text it wrote. */
  private static final class Writes extends OutputStream {
    final List<String> writes = new ArrayList<>();

    @Override
    public void write(int b) {
      writes.add(String.valueOf((char) b));
    }

    @Override
    public void write(byte[] b, int off, int len) {
      writes.add(new String(b, off, len, StandardCharsets.UTF_8));
    }
  }

  @Test
  void theWholeLineIsOneWrite() {
    Writes w = new Writes();
    Cli.printAtOnce(new PrintStream(w, true, StandardCharsets.UTF_8), FORMAT, ARGS);
    String line = String.format(FORMAT, ARGS);
    assertThat(w.writes, equalTo(List.of(line)));
  }

  /** What the helper is for: printf writes a line in pieces (if it did not, the test above would prove nothing). */
  @Test
  void printfWritesTheSameLineInPieces() {
    Writes w = new Writes();
    new PrintStream(w, true, StandardCharsets.UTF_8).printf(FORMAT, ARGS);
    assertThat(w.writes.size(), greaterThan(1));
    assertThat(String.join("", w.writes), equalTo(String.format(FORMAT, ARGS)));
    ByteArrayOutputStream same = new ByteArrayOutputStream();
    Cli.printAtOnce(new PrintStream(same, true, StandardCharsets.UTF_8), FORMAT, ARGS);
    assertThat(same.toString(StandardCharsets.UTF_8), equalTo(String.join("", w.writes)));
  }
}
