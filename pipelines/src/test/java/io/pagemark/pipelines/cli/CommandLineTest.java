package io.pagemark.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import io.pagemark.pipelines.Main;
import io.pagemark.pipelines.backfill.BackfillOptions;
import io.pagemark.pipelines.stream.StreamCommand;
import io.pagemark.pipelines.stream.StreamOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.options.Description;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line as a whole: generated help, usage errors in pagemark's words with exit code 2, both option
 * syntaxes, and the Beam commands' options taken from their PipelineOptions interfaces. No service is needed: every
 * case fails or ends before anything is read.
 */
class CommandLineTest {
  record Run(int code, String out, String err) {}

  static Run pagemark(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static void assertUsageError(Run r, String firstLine) {
    assertThat(r.err, r.code, is(ExitCode.USAGE));
    assertThat(r.out, emptyString());
    assertThat(r.err, startsWith(firstLine + "\n"));
    assertThat(r.err, allOf(containsString("\nusage: pagemark"), containsString("--help' for more information.")));
  }

  @Test
  void helpListsEveryCommandAndEveryCommandHasHelp() {
    Run help = pagemark("--help");
    assertThat(help.code, is(ExitCode.OK));
    List<String> commands = List.of("demo", "backfill", "stream", "commit", "catch-up", "lookup", "page", "verify", "gc",
        "relay", "flink-cluster", "markers");
    for (String c : commands) {
      assertThat(help.out, containsString("\n  " + c + " "));
      Run sub = pagemark(c, "--help");
      assertThat(c, sub.code, is(ExitCode.OK));
      assertThat(c, sub.out, startsWith("usage: pagemark " + c + " "));
      assertThat(c, sub.err, emptyString());
    }
    assertThat(pagemark("help", "gc").out, containsString("--graceMinutes=M"));
    assertThat(pagemark("flink-cluster", "start", "--help").out, containsString("--taskmanagers=N"));
    assertThat(pagemark("markers", "build", "--help").out, containsString("--pageSize="));
    assertThat(pagemark("markers", "remove", "--help").out, containsString("--index=SPEC"));
  }

  @Test
  void versionNamesPagemarkAndBeam() {
    Run v = pagemark("--version");
    assertThat(v.code, is(ExitCode.OK));
    assertThat(v.out, matchesPattern("(?s)pagemark \\d+\\.\\d+\\.\\d+.*\nApache Beam 2\\.62\\.0, Java .*"));
  }

  @Test
  void usageErrorsSayWhatWasWrong() {
    assertUsageError(pagemark(), "pagemark: say which command to run: demo, backfill, stream, commit, catch-up,"
        + " lookup, page, verify, gc, relay, flink-cluster, serve, resp, markers, help");
    Run unknown = pagemark("lookupp");
    assertUsageError(unknown, "pagemark: unknown command \"lookupp\" (demo, backfill, stream, commit, catch-up,"
        + " lookup, page, verify, gc, relay, flink-cluster, serve, resp, markers or help)");
    assertThat(unknown.err, containsString("pagemark lookup"));
    assertUsageError(pagemark("gc", "--index=/nowhere", "--keep=1", "--keep=2"),
        "pagemark gc: option --keep given twice");
    assertUsageError(pagemark("gc", "--index"),
        "pagemark gc: option --index needs a value: --index=DIR|s3://BUCKET/PREFIX|jdbc:postgresql://...");
    assertUsageError(pagemark("gc", "--index=s3://B/x"),
        "pagemark gc: \"s3://B/x\": \"B\" is not an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-'); expected"
            + " s3://BUCKET/PREFIX[?endpoint=URL]");
    assertUsageError(pagemark("commit", "--index=s3://bucket/x"),
        "pagemark commit: an index in S3 needs --wal=DIR: the local directory that holds its WAL");
    assertUsageError(pagemark("gc", "--index="), "pagemark gc: --index must not be empty");
    assertUsageError(pagemark("gc", "--index=x", "--keep=0"),
        "pagemark gc: --keep must be between 1 and 1000000, not 0");
    assertUsageError(pagemark("gc"), "pagemark gc: missing required option --index");
    assertUsageError(pagemark("commit"), "pagemark commit: missing required option --index");
    assertUsageError(pagemark("page", "--index=x", "--group=g", "--page=1", "--pageSize=2"),
        "pagemark page: missing required option --table");
    assertUsageError(pagemark("verify", "--index=x"), "pagemark verify: missing required options --table, --gsi");
    assertUsageError(pagemark("relay", "--table=t", "--stream=s", "--createStream=1001"),
        "pagemark relay: --createStream must be between 0 and 1000, not 1001");
    assertUsageError(pagemark("demo", "--items=many"), "pagemark demo: --items must be a whole number, not \"many\"");
    assertUsageError(pagemark("flink-cluster"), "pagemark flink-cluster: say start, stop or status");
  }

  @Test
  void optionsTakeTheirValueAfterAnEqualsSignOrAsTheNextArgument(@TempDir Path dir) throws Exception {
    Run spaced = pagemark("gc", "--index", "/nowhere/at/all", "--keep", "0");
    assertUsageError(spaced, "pagemark gc: --keep must be between 1 and 1000000, not 0");
    assertUsageError(pagemark("gc", "--Index=x"), "pagemark gc: unknown option --Index");

    // Only the first '=' separates; a value that starts with '@' is a value, not a file of arguments.
    Path arguments = Files.writeString(dir.resolve("args"), "--colour=red");
    Run r = pagemark("lookup", "--index=" + dir.resolve("a=b"), "--group", "@" + arguments, "--page=1",
        "--pageSize=1");
    assertThat(r.err, r.code, is(ExitCode.FAILURE));
    assertThat(r.err, allOf(containsString("no such index directory"), containsString("a=b")));
  }

  @Test
  void backfillHelpListsTheOptionsOfItsInterface() throws Exception {
    Run help = pagemark("backfill", "--help");
    assertThat(help.out, startsWith("usage: pagemark backfill --table=TABLE [OPTION...] [BEAM-OPTION...]\n"));
    Map<String, Method> properties = BeamOptions.properties(BackfillOptions.class);
    assertThat(properties.keySet(), org.hamcrest.Matchers.hasItems("--table", "--gsi", "--segments", "--redis",
        "--redisKeyPrefix"));
    assertThat(properties.keySet(), not(org.hamcrest.Matchers.hasItem("--runner"))); // Beam's own: passed through
    for (Map.Entry<String, Method> p : properties.entrySet()) {
      String described = p.getValue().getAnnotation(Description.class).value();
      assertThat(help.out, containsString("      " + p.getKey() + "="));
      String start = described.substring(0, Math.min(30, described.length()));
      assertThat(p.getKey(), help.out.replaceAll("\\s+", " "), containsString(start));
    }
    assertThat(help.out, containsString("--segments=N "));
    assertThat(help.out, containsString("Default: 8."));
  }

  @Test
  void beamCommandsCheckTheirOptionsAndBeamsBeforeTouchingAnything() {
    assertUsageError(pagemark("backfill", "--table=t", "--gsi=g", "--output=o", "--colour=red"),
        "pagemark backfill: unknown option --colour");
    assertUsageError(pagemark("backfill", "--tabel=t"), "pagemark backfill: unknown option --tabel");
    assertUsageError(pagemark("backfill", "--table=t", "--segments=x"),
        "pagemark backfill: --segments must be a whole number, not \"x\"");
    assertUsageError(pagemark("backfill", "--table=t", "--output=o"),
        "pagemark backfill: give --gsi=INDEX, or --groupAttribute and --sortAttribute");
    assertUsageError(pagemark("backfill", "--table", "t", "--gsi", "g", "--output", "o", "--segments", "0"),
        "pagemark backfill: --segments must be between 1 and 1000000, not 0");
    assertUsageError(pagemark("backfill", "--table=t", "--gsi=g", "--output=o", "--runner", "FlinkRunner"),
        "pagemark backfill: unexpected argument \"FlinkRunner\" (options look like --name=value; Beam's own options"
            + " need the '=')");
    assertUsageError(pagemark("stream", "--stream=s", "--table=t", "--gsi=g", "--output=o", "--resolveTies=maybe"),
        "pagemark stream: --resolveTies must be true or false, not \"maybe\"");
    assertUsageError(pagemark("stream", "--stream=s", "--table=t"), "pagemark stream: missing required option --gsi");
  }

  @Test
  void streamRangeChecksAreUsageErrorsBeforeAnyServiceIsAsked() {
    // no DynamoDB or Kinesis listens at these endpoints: a check made after reaching them would exit 1
    String[] base = {"stream", "--stream=s", "--table=t", "--gsi=g", "--dynamoEndpoint=http://127.0.0.1:9",
        "--kinesisEndpoint=http://127.0.0.1:9"};
    assertUsageError(pagemark(with(base, "--output=o", "--flushMillis=0")),
        "pagemark stream: --flushMillis must be at least 1, not 0");
    assertUsageError(pagemark(with(base, "--output=o", "--dedupeHours=0")),
        "pagemark stream: --dedupeHours must be at least 1, not 0");
    assertUsageError(pagemark(with(base, "--output=o", "--checkpointSeconds=-1")),
        "pagemark stream: --checkpointSeconds must be 0 (off) or more, not -1");
    assertUsageError(pagemark(base), "pagemark stream: give --output=DIR, --redis=redis://HOST:PORT,"
        + " --markers=dynamodb://TABLE/MARKER_INDEX, or several");
  }

  private static String[] with(String[] base, String... more) {
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @Test
  void theDirectRunnersTestOnlyChecksAreOffUnlessTheCommandLineNamesThem() {
    PrintStream none = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    CommandLine cl = Cli.commandLine(new StreamCommand(none, none), none, none);
    cl.parseArgs("--stream=s", "--table=t", "--gsi=g", "--output=o");
    DirectOptions d = BeamOptions.parse(cl.getCommandSpec(), StreamOptions.class).as(DirectOptions.class);
    assertThat(d.isEnforceImmutability(), is(false));
    assertThat(d.isEnforceEncodability(), is(false));
    cl = Cli.commandLine(new StreamCommand(none, none), none, none);
    cl.parseArgs("--stream=s", "--table=t", "--gsi=g", "--output=o", "--enforceImmutability=true");
    d = BeamOptions.parse(cl.getCommandSpec(), StreamOptions.class).as(DirectOptions.class);
    assertThat(d.isEnforceImmutability(), is(true));
    assertThat(d.isEnforceEncodability(), is(false));
  }

  @Test
  void beamOptionsReachBeamInEitherSyntax() {
    PrintStream none = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    CommandLine cl = Cli.commandLine(new StreamCommand(none, none), none, none);
    cl.parseArgs("--stream", "s", "--table=t", "--gsi", "g", "--resolveTies", "--flushMillis", "250",
        "--runner=DirectRunner", "--redisBatchSize=7");
    StreamOptions o = BeamOptions.parse(cl.getCommandSpec(), StreamOptions.class);
    assertThat(o.getStream(), equalTo("s"));
    assertThat(o.getGsi(), equalTo("g"));
    assertThat(o.getFlushMillis(), is(250L));
    assertThat(o.getResolveTies(), is(true));
    assertThat(o.getRedisBatchSize(), is(7));
    assertThat(o.getRunner().getSimpleName(), equalTo("DirectRunner"));
    assertThat(o.getDedupeHours(), is(24)); // Beam's default, not picocli's

    cl = Cli.commandLine(new StreamCommand(none, none), none, none);
    cl.parseArgs("--stream=s", "--table=t", "--gsi=g", "--resolveTies=false");
    assertThat(BeamOptions.parse(cl.getCommandSpec(), StreamOptions.class).getResolveTies(), is(false));
  }

  @Test
  void beamsWordsForAnUnknownOptionBecomeOurs() {
    assertThat(BeamOptions.beamsMessage("Class interface io.pagemark.X missing a property named 'tabel'. Did you"
        + " mean 'table'?"), equalTo("unknown option --tabel (did you mean --table?)"));
    assertThat(BeamOptions.beamsMessage("Class interface io.pagemark.X missing a property named 'colour'."),
        equalTo("unknown option --colour"));
    assertThat(BeamOptions.beamsMessage("something else"), equalTo("something else"));
  }
}
