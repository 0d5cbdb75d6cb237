package io.pagemark.server.http;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.nullValue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeCommandTest {
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();

  int run(String... args) {
    return ServeCommand.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void optionsBecomeAConfiguration() {
    ServeConfig c = ServeCommand.parse(List.of("--index=/i", "--table=T", "--gsi=G", "--port=0", "--freshPages=2",
        "--pageSize=50", "--maxPageSize=500", "--refreshSeconds=0.5", "--threads=4",
        "--dynamoEndpoint=http://127.0.0.1:8000"));
    assertThat(c.index(), equalTo("/i"));
    assertThat(c.gsi(), equalTo("G"));
    assertThat(c.port(), is(0));
    assertThat(c.freshPages(), is(2));
    assertThat(c.pageSize(), is(50));
    assertThat(c.maxPageSize(), is(500));
    assertThat(c.refresh(), equalTo(Duration.ofMillis(500)));
    assertThat(c.threads(), is(4));
    assertThat(c.dynamo().endpoint(), equalTo("http://127.0.0.1:8000"));
    ServeConfig defaults = ServeCommand.parse(List.of("--index=/i", "--table=T"));
    assertThat(defaults.gsi(), nullValue());
    assertThat(defaults.port(), is(8080));
    assertThat(defaults.bind(), equalTo("127.0.0.1"));
    assertThat(defaults.pageSize(), is(20));
  }

  @Test
  void badOptionsAreUsageErrors() {
    String[][] cases = {
        {"--table=T"},
        {"--index=/i", "--table=T", "--port=x"},
        {"--index=/i", "--table=T", "--pageSize=2000"},
        {"--index=/i", "--table=T", "--maxPageSize=2000000"},
        {"--index=/i", "--table=T", "--freshPages=2000"},
        {"--index=/i", "--table=T", "--refreshSeconds=0"},
        {"--index=/i", "--table=T", "--nope=1"},
        {"--index=/i", "--table=T", "--port=1", "--port=2"},
        {"--index=/i", "--table=T", "serve"},
    };
    for (String[] c : cases) {
      err.reset();
      assertThat(String.join(" ", c), run(c), is(2));
      assertThat(err.toString(StandardCharsets.UTF_8), containsString("usage: pagemark serve"));
    }
  }

  @Test
  void anIndexThatCannotBeOpenedFailsAtStart(@TempDir Path dir) {
    assertThat(run("--index=" + dir.resolve("missing"), "--table=T", "--port=0"), is(1));
    assertThat(err.toString(StandardCharsets.UTF_8), containsString("pagemark serve: cannot start: "));
    assertThat(err.toString(StandardCharsets.UTF_8), containsString("no such index directory"));
  }
}
