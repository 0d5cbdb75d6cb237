package io.pagemark.pipelines.resp;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.pipelines.Main;
import io.pagemark.pipelines.cli.ExitCode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pagemark resp}'s command line, through {@link Main} and as {@code bin/pagemark resp} runs it alone: generated
 * help, usage errors with exit code 2, exit code 1 when there is nothing to serve. Every case ends before a port is
 * bound.
 */
class RespCommandTest {
  record Run(int code, String out, String err) {}

  static Run viaMain(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Run alone(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = RespCommand.standalone(new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8)).execute(args);
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void helpListsEveryOptionBothWays() {
    for (Run help : List.of(viaMain("resp", "--help"), alone("--help"), viaMain("--help"))) {
      assertThat(help.err, help.code, is(ExitCode.OK));
    }
    assertThat(viaMain("--help").out, containsString("\n  resp "));
    for (Run help : List.of(viaMain("resp", "--help"), alone("--help"))) {
      assertThat(help.out, allOf(startsWith("usage: pagemark resp --index=DIR"), containsString("--port"),
          containsString("--bind"), containsString("--wal"), containsString("--maxClients"),
          containsString("--threads"), containsString("--dynamoEndpoint")));
    }
  }

  @Test
  void usageErrorsSayWhatIsWrongWithExitCode2() {
    assertUsage(viaMain("resp"), "pagemark resp: missing required option --index");
    assertUsage(alone(), "pagemark resp: missing required option --index");
    assertUsage(alone("--index=x", "--colour=red"), "pagemark resp: unknown option --colour");
    assertUsage(viaMain("resp", "--index=x", "--port=70000"), "pagemark resp: --port must be between 0 and 65535,"
        + " not 70000");
    assertUsage(alone("--index=x", "--threads=0"), "pagemark resp: --threads must be between 1 and 64, not 0");
    assertUsage(alone("--index=x", "--maxClients=many"),
        "pagemark resp: --maxClients must be a whole number, not \"many\"");
    assertUsage(alone("--index=x", "--dynamoEndpoint=http://127.0.0.1:8000"),
        "pagemark resp: --dynamoEndpoint and --awsRegion are for commits or a dynamodb:// index; they need --wal");
    assertUsage(alone("--index=dynamodb://table/markers", "--wal=" + Path.of("x")),
        "pagemark resp: --wal stages ZADD and ZREM in a file index's write-ahead log; \"dynamodb://table/markers\""
            + " is not a file index");
    assertUsage(alone("--index=dynamodb://table"), "pagemark resp: \"dynamodb://table\" names no table and marker"
        + " index");
  }

  @Test
  void aMissingIndexFailsWithExitCode1(@TempDir Path dir) {
    Run r = alone("--index=" + dir.resolve("nothing"), "--port=0");
    assertThat(r.err, r.code, is(ExitCode.FAILURE));
    assertThat(r.err, allOf(startsWith("pagemark resp: "),
        containsString("give --index the directory pagemark backfill wrote")));
  }

  private static void assertUsage(Run r, String firstLine) {
    assertThat(r.err, r.code, is(ExitCode.USAGE));
    assertThat(r.err, startsWith(firstLine));
    assertThat(r.err, allOf(containsString("usage: pagemark resp"), containsString("--help' for more information.")));
  }
}
