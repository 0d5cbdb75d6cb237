package io.pagemark.server.resp;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Frames found whole or asked for more; arguments decoded; protocol errors with Redis's texts. */
class RequestParserTest {
  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  static List<String> args(String frame) throws Exception {
    byte[] x = b(frame);
    int end = RequestParser.frameEnd(x, 0, x.length);
    assertThat(end, equalTo(x.length));
    List<String> out = new ArrayList<>();
    for (byte[] a : RequestParser.arguments(x, 0, end)) {
      out.add(new String(a, StandardCharsets.ISO_8859_1));
    }
    return out;
  }

  @Test
  void arraysOfBulkStringsAndInlineCommands() throws Exception {
    assertThat(args("*3\r\n$6\r\nZRANGE\r\n$1\r\nk\r\n$0\r\n\r\n"), equalTo(List.of("ZRANGE", "k", "")));
    assertThat(args("*1\r\n$4\r\nA\r\nB\r\n"), equalTo(List.of("A\r\nB")));
    assertThat(args("PING\r\n"), equalTo(List.of("PING")));
    assertThat(args("  ECHO \"a b\\x41\\n\" 'c d'\n"), equalTo(List.of("ECHO", "a bA\n", "c d")));
    assertThat(args("*0\r\n"), equalTo(List.of()));
  }

  @Test
  void anIncompleteFrameSaysHowMuchItNeedsAtLeast() throws Exception {
    byte[] full = b("*2\r\n$4\r\nECHO\r\n$10\r\n0123456789\r\n");
    for (int cut = 0; cut < full.length; cut++) {
      int r = RequestParser.frameEnd(full, 0, cut);
      assertThat("cut at " + cut, r, lessThan(0));
      assertThat("cut at " + cut, -r > cut && -r <= full.length, equalTo(true));
    }
    assertThat(RequestParser.frameEnd(full, 0, 20), equalTo(-full.length)); // inside the last bulk string
  }

  @Test
  void brokenFramesAreProtocolErrors() {
    for (String[] bad : new String[][] {
        {"*1\r\n*1\r\n", "Protocol error: expected '$', got '*'"},
        {"*1\r\n$536870912\r\n", "Protocol error: invalid bulk length"},
        {"*1\r\n$-5\r\n", "Protocol error: invalid bulk length"},
        {"*x\r\n", "Protocol error: invalid multibulk length"},
        {"*2000000\r\n", "Protocol error: invalid multibulk length"},
        {"*1\r\n$2\r\nabcd", "Protocol error: expected CRLF after a bulk string of 2 bytes"},
        {"*1\r\n$99999999999999999999999\r\n", "Protocol error: invalid bulk length"}}) {
      RequestParser.ProtocolException e = assertThrows(RequestParser.ProtocolException.class,
          () -> RequestParser.frameEnd(b(bad[0]), 0, bad[0].length()));
      assertThat(bad[0], e.getMessage(), equalTo(bad[1]));
    }
    byte[] inline = b("x".repeat(RequestParser.MAX_INLINE + 1));
    assertThrows(RequestParser.ProtocolException.class, () -> RequestParser.frameEnd(inline, 0, inline.length));
  }
}
