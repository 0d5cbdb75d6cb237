package io.pagemark.pipelines.serve;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import io.pagemark.pipelines.Main;
import io.pagemark.pipelines.cli.Cli;
import io.pagemark.server.http.ServeConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code pagemark serve}'s options: how they become a {@link ServeConfig}, usage errors (exit 2), a bad index. */
class ServeCommandTest {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String... args) {
    List<String> argv = new java.util.ArrayList<>(List.of("serve"));
    argv.addAll(List.of(args));
    return Main.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  static ServeConfig parse(String... args) {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    ServeCommand command = new ServeCommand(sink, sink);
    CommandLine cl = Cli.commandLine(command, sink, sink);
    cl.parseArgs(args);
    return command.config();
  }

  @Test
  void optionsBecomeAConfiguration() {
    ServeConfig c = parse("--index=/i", "--table=T", "--gsi=G", "--port=0", "--freshPages=2", "--pageSize=50",
        "--maxPageSize=500", "--refreshSeconds=0.5", "--threads=4", "--dynamoEndpoint=http://127.0.0.1:8000");
    assertThat(c.index(), equalTo("/i"));
    assertThat(c.gsi(), equalTo("G"));
    assertThat(c.port(), is(0));
    assertThat(c.freshPages(), is(2));
    assertThat(c.pageSize(), is(50));
    assertThat(c.maxPageSize(), is(500));
    assertThat(c.refresh(), equalTo(Duration.ofMillis(500)));
    assertThat(c.threads(), is(4));
    assertThat(c.dynamo().endpoint(), equalTo("http://127.0.0.1:8000"));
    ServeConfig defaults = parse("--index", "/i", "--table", "T");
    assertThat(defaults.gsi(), nullValue());
    assertThat(defaults.port(), is(8080));
    assertThat(defaults.bind(), equalTo("127.0.0.1"));
    assertThat(defaults.pageSize(), is(20));
    assertThat(defaults.refresh(), equalTo(Duration.ofSeconds(2)));
    // the default page size shrinks to a smaller --maxPageSize; a given one must fit
    assertThat(parse("--index=/i", "--table=T", "--maxPageSize=5").pageSize(), is(5));
  }

  @Test
  void badOptionsAreUsageErrors() {
    String[][] cases = {
        {"--table=T"},
        {"--index=/i", "--table=T", "--port=x"},
        {"--index=/i", "--table=T", "--port=70000"},
        {"--index=/i", "--table=T", "--pageSize=2000"},
        {"--index=/i", "--table=T", "--maxPageSize=5", "--pageSize=6"},
        {"--index=/i", "--table=T", "--maxPageSize=2000000"},
        {"--index=/i", "--table=T", "--freshPages=2000"},
        {"--index=/i", "--table=T", "--refreshSeconds=0"},
        {"--index=/i", "--table=T", "--threads=0"},
        {"--index=/i", "--table=T", "--nope=1"},
        {"--index=/i", "--table=T", "--port=1", "--port=2"},
        {"--index=/i", "--table=T", "serve"},
        {"--index=", "--table=T"},
    };
    for (String[] c : cases) {
      err.reset();
      assertThat(String.join(" ", c), run(c), is(2));
      assertThat(String.join(" ", c), err.toString(StandardCharsets.UTF_8), containsString("usage: pagemark serve"));
    }
  }

  @Test
  void helpListsTheOptions() {
    assertThat(run("--help"), is(0));
    String help = out.toString(StandardCharsets.UTF_8);
    for (String option : List.of("--index", "--table", "--gsi", "--port", "--bind", "--dynamoEndpoint",
        "--awsRegion", "--freshPages", "--pageSize", "--maxPageSize", "--refreshSeconds", "--threads")) {
      assertThat(help, containsString(option));
    }
  }

  @Test
  void anIndexThatCannotBeOpenedFailsAtStart(@TempDir Path dir) {
    assertThat(run("--index=" + dir.resolve("missing"), "--table=T", "--port=0"), is(1));
    assertThat(err.toString(StandardCharsets.UTF_8), containsString("pagemark serve: cannot start: "));
    assertThat(err.toString(StandardCharsets.UTF_8), containsString("no such index directory"));
  }

  @Test
  void theDemosPortNeedsServe() {
    int code = Main.run(List.of("demo", "--port=9000"), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code, is(2));
    assertThat(err.toString(StandardCharsets.UTF_8), containsString("--port is the port of --serve"));
  }
}
